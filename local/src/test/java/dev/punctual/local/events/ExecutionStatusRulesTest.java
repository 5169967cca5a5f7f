package dev.punctual.local.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExecutionStatusEvents;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's status-change events and windowed mode's rules on a real engine and a manual timer: the
 * event's shape as AWS documents it, which events the rule's pattern lets through, delivery later and
 * at least once, retries of a failing target as Lambda's asynchronous retries, and the sweep's schedule.
 */
class ExecutionStatusRulesTest {

    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String HOLD = """
            {"StartAt":"Hold","States":{"Hold":{"Type":"Wait","Seconds":60,"Next":"Done"},"Done":{"Type":"Succeed"}}}""";
    private static final String BUCKET_INPUT = "{\"table\":\"orders\",\"ttlAttribute\":\"ttl\",\"level\":\"second\","
            + "\"bucketStart\":\"2030-01-01T00:10:00Z\",\"wakeAt\":\"2030-01-01T00:09:59Z\",\"hop\":0}";

    private ManualTimer timer;
    private StepFunctionsEngine engine;
    private String buckets;
    private String others;
    private final List<ObjectNode> delivered = new CopyOnWriteArrayList<>();
    private EventRules rules;
    private ExecutorService deliveries;

    @BeforeEach
    void start() {
        timer = ManualTimer.startingAt(Instant.parse("2030-01-01T00:00:00Z"));
        engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(List.of())
                .timer(timer)
                .build();
        buckets = engine.createStateMachine("expire-bucket", HOLD, ROLE, "STANDARD").stateMachineArn();
        others = engine.createStateMachine("someone-elses", HOLD, ROLE, "STANDARD").stateMachineArn();
    }

    @AfterEach
    void stop() {
        if (rules != null) {
            rules.close();
            deliveries.shutdownNow();
        }
        engine.close();
    }

    private final List<ObjectNode> sweeps = new CopyOnWriteArrayList<>();

    /**
     * The bus as the runtime wires it, with windowed mode's two rules: status changes of the bucket
     * machine's unfinished executions go to {@code target}, the sweep's scheduled events to {@link #sweeps}.
     */
    private void install(Consumer<ObjectNode> target) {
        deliveries = Executors.newFixedThreadPool(2);
        rules = new EventRules(timer, deliveries)
                .add("healing", ExecutionStatusEvents.unfinishedPattern(buckets), target)
                .addSchedule("sweep", ExecutionStatusEvents.SWEEP_INTERVAL, "us-east-1", "123456789012", sweeps::add);
        engine.addListener(new ExecutionStatusPublisher(rules, "us-east-1", "123456789012"));
    }

    private String startAndStop(String machine, String name) {
        String arn = engine.startExecution(machine, name, BUCKET_INPUT).join().executionArn();
        engine.stopExecution(arn, "Operator", "stopped by hand").join();
        return arn;
    }

    /** Lets the timer run what is due, and the delivery threads what the timer handed them. */
    private void awaitDelivered(int count) {
        Await.until(count + " deliveries", Duration.ofSeconds(10), () -> {
            timer.advance(Duration.ZERO);
            return delivered.size() >= count;
        });
    }

    @Test
    void stoppedBucketExecution_isDeliveredAsStepFunctionsDocumentsTheEvent() {
        install(delivered::add);

        String arn = startAndStop(buckets, "20300101T001000Z-second-orders-abcdef");
        awaitDelivered(1);

        ObjectNode event = delivered.get(0);
        assertThat(event.path("source").asText()).isEqualTo(ExecutionStatusEvents.SOURCE);
        assertThat(event.path("detail-type").asText()).isEqualTo(ExecutionStatusEvents.DETAIL_TYPE);
        assertThat(event.path("account").asText()).isEqualTo("123456789012");
        assertThat(event.path("region").asText()).isEqualTo("us-east-1");
        assertThat(event.path("resources")).containsExactly(event.path("detail").path("executionArn"));
        JsonNode detail = event.path("detail");
        assertThat(detail.path("executionArn").asText()).isEqualTo(arn);
        assertThat(detail.path("stateMachineArn").asText()).isEqualTo(buckets);
        assertThat(detail.path("name").asText()).isEqualTo("20300101T001000Z-second-orders-abcdef");
        assertThat(detail.path("status").asText()).isEqualTo("ABORTED");
        assertThat(detail.path("startDate").asLong()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z").toEpochMilli());
        assertThat(detail.path("stopDate").isNumber()).isTrue();
        assertThat(detail.path("input").asText()).isEqualTo(BUCKET_INPUT);
        assertThat(detail.path("inputDetails").path("included").asBoolean()).isTrue();
        assertThat(detail.path("output").isNull()).isTrue();
        assertThat(detail.path("error").asText()).isEqualTo("Operator");
        assertThat(detail.path("cause").asText()).isEqualTo("stopped by hand");
    }

    @Test
    void onlyUnfinishedExecutionsOfTheBucketStateMachine_reachTheTarget() {
        install(delivered::add);
        engine.startExecution(buckets, "succeeds", BUCKET_INPUT).join();
        startAndStop(others, "someone-elses-stopped");
        timer.advance(Duration.ofMinutes(2));
        startAndStop(buckets, "stopped");

        awaitDelivered(1);
        timer.advance(Duration.ofMinutes(5));

        assertThat(delivered).extracting(e -> e.path("detail").path("name").asText()).containsExactly("stopped");
    }

    @Test
    void targetThatFails_isRetriedAfterOneMinuteThenTwo_thenTheEventIsDropped() {
        AtomicInteger attempts = new AtomicInteger();
        List<Instant> at = new CopyOnWriteArrayList<>();
        install(event -> {
            at.add(timer.clock().instant());
            attempts.incrementAndGet();
            throw new IllegalStateException("Lambda.ServiceException");
        });
        startAndStop(buckets, "stopped");
        Instant stopped = timer.clock().instant();

        Await.until("three attempts", Duration.ofSeconds(10), () -> {
            timer.advance(Duration.ofSeconds(30));
            return attempts.get() == 3 && rules.dropped() == 1;
        });

        assertThat(at.get(1)).isAfterOrEqualTo(at.get(0).plus(EventRules.RETRY_DELAYS.get(0)));
        assertThat(at.get(2)).isAfterOrEqualTo(at.get(1).plus(EventRules.RETRY_DELAYS.get(1)));
        assertThat(at.get(0)).isBefore(stopped.plusSeconds(31));
        assertThat(rules.delivered()).as("only the sweeps").isEqualTo(sweeps.size());
    }

    @Test
    void targetThatFailsOnce_getsTheEventAgain() {
        AtomicInteger attempts = new AtomicInteger();
        install(event -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("Lambda.Unknown");
            }
            delivered.add(event);
        });
        startAndStop(buckets, "stopped");

        Await.until("the retry", Duration.ofSeconds(10), () -> {
            timer.advance(Duration.ofSeconds(30));
            return delivered.size() == 1;
        });

        assertThat(rules.failedAttempts()).isEqualTo(1);
        assertThat(rules.delivered()).as("the retry, and the sweeps").isEqualTo(1 + sweeps.size());
    }

    @Test
    void theSweepsScheduledEvent_comesAtInstall_andEveryInterval() {
        install(delivered::add);
        Instant installed = timer.clock().instant();

        Await.until("the sweep at install", Duration.ofSeconds(10), () -> {
            timer.advance(Duration.ZERO);
            return sweeps.size() == 1;
        });
        Await.until("two more sweeps", Duration.ofSeconds(10), () -> {
            timer.advance(Duration.ofMinutes(1));
            return sweeps.size() == 3;
        });

        assertThat(timer.clock().instant()).isAfterOrEqualTo(installed.plus(ExecutionStatusEvents.SWEEP_INTERVAL.multipliedBy(2)));
        ObjectNode sweep = sweeps.get(0);
        assertThat(sweep.path("source").asText()).isEqualTo(ExecutionStatusEvents.SCHEDULED_SOURCE);
        assertThat(sweep.path("detail-type").asText()).isEqualTo(ExecutionStatusEvents.SCHEDULED_DETAIL_TYPE);
        assertThat(sweep.path("resources").get(0).asText()).endsWith(":rule/sweep");
        assertThat(delivered).isEmpty();
    }
}
