package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.asl.paths.Json;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The events of a Map or Parallel state that fails and is retried, as AWS recorded them
 * (LocalStack's {@code test_map_state_retry}, {@code test_parallel_state_retry}): each retry starts the
 * state again ({@code MapStateStarted}, {@code ParallelStateStarted}), and the state's failed event comes
 * once, after the last attempt, before a Catcher's transition or the execution's end.
 */
class RetriedMapAndParallelEventsTest {

    private static final Instant START = Instant.parse("2024-01-01T00:00:00Z");

    @Test
    void map_retriedTwice_startsThreeTimesAndFailsOnce() {
        ManualClockRun run = ManualClockRun.run(Json.parse("""
                {"StartAt":"MapState","States":{"MapState":{"Type":"Map","MaxConcurrency":1,
                  "ItemProcessor":{"StartAt":"HandleItemFail","States":{"HandleItemFail":{"Type":"Fail",
                    "Error":"HandleItemFailError","Cause":"HandleItemFailCause"}}},
                  "Retry":[{"ErrorEquals":["HandleItemFailError"],"MaxAttempts":2}],"End":true}}}"""),
                Json.parse("[1]"), START, null);

        assertThat(run.observer.eventTypes()).containsExactly("MapStateEntered",
                "MapStateStarted", "MapIterationStarted", "FailStateEntered", "MapIterationFailed",
                "MapStateStarted", "MapIterationStarted", "FailStateEntered", "MapIterationFailed",
                "MapStateStarted", "MapIterationStarted", "FailStateEntered", "MapIterationFailed",
                "MapStateFailed");
        assertThat(run.outcome().error()).isEqualTo("HandleItemFailError");
        assertThat(run.observer.events.stream().filter(e -> e.type().equals("MapIterationFailed")))
                .allSatisfy(e -> assertThat(e.details().fieldNames()).toIterable().containsExactlyInAnyOrder(
                        "name", "index"));
    }

    @Test
    void parallel_retriedTwice_startsThreeTimesAndFailsOnce() {
        ManualClockRun run = ManualClockRun.run(Json.parse("""
                {"StartAt":"ParallelState","States":{"ParallelState":{"Type":"Parallel",
                  "Branches":[{"StartAt":"Branch1","States":{"Branch1":{"Type":"Fail","Error":"FailureType",
                    "Cause":"Cause description"}}}],
                  "Retry":[{"ErrorEquals":["FailureType"],"MaxAttempts":2}],"End":true}}}"""),
                Json.parse("{}"), START, null);

        assertThat(run.observer.eventTypes()).containsExactly("ParallelStateEntered",
                "ParallelStateStarted", "FailStateEntered",
                "ParallelStateStarted", "FailStateEntered",
                "ParallelStateStarted", "FailStateEntered",
                "ParallelStateFailed");
        assertThat(run.outcome().cause()).isEqualTo("Cause description");
    }

    @Test
    void map_failedAndCaught_failsBeforeTheCatcherExitsIt() {
        ManualClockRun run = ManualClockRun.run(Json.parse("""
                {"StartAt":"MapState","States":{"MapState":{"Type":"Map",
                  "ItemProcessor":{"StartAt":"F","States":{"F":{"Type":"Fail","Error":"E"}}},
                  "Retry":[{"ErrorEquals":["E"],"MaxAttempts":1}],
                  "Catch":[{"ErrorEquals":["States.ALL"],"Next":"Done"}],"Next":"Done"},
                  "Done":{"Type":"Succeed"}}}"""),
                Json.parse("[1]"), START, null);

        assertThat(run.observer.eventTypes()).containsExactly("MapStateEntered",
                "MapStateStarted", "MapIterationStarted", "FailStateEntered", "MapIterationFailed",
                "MapStateStarted", "MapIterationStarted", "FailStateEntered", "MapIterationFailed",
                "MapStateFailed", "MapStateExited", "SucceedStateEntered", "SucceedStateExited");
    }
}
