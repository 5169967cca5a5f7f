package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.statemachine.StateMachineDefinitions;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every state machine Punctual ships ({@code expire-item.asl.json}, {@code expire-bucket.asl.json},
 * {@code run-bucket.asl.json}, rendered as CDK renders them) runs on our interpreter and on
 * aws-local-stepfunctions, their Task resources answered by the same canned answers on both sides, through
 * every path: due, superseded, throttled then deleted, failed, long horizon continued as a new execution (or
 * already continued); a bucket's runner run to its end, failing until the retries run out, never
 * answering; a runner stepping through its seconds with waits between, its function failing then working,
 * failing for good.
 *
 * <p>Two things the other interpreter lacks are supplied or set aside, as the feature table in docs/engine.md
 * records: it has no {@code $$.State}, so the case hands it {@code $$.State.EnteredTime} as AWS
 * defines it (when the delete state was entered, our engine's own value is checked against it); and
 * its full-jitter retry waits are random, so after a jittered retry the end instant is not compared.
 */
class ShippedMachinesDifferentialTest {

    private static final Instant START = ConformanceTest.START;
    private static final String DELETE_ITEM = "arn:aws:states:::dynamodb:deleteItem";
    private static final String START_EXECUTION = "arn:aws:states:::states:startExecution";
    private static final String LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke";
    private static final String START_EXECUTION_SYNC = "arn:aws:states:::states:startExecution.sync:2";
    private static final String RUNNER = "arn:aws:states:us-east-1:123456789012:stateMachine:run-bucket";
    private static final String BUCKET_FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:bucket:live";
    private static final DateTimeFormatter CONTEXT_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(java.time.ZoneOffset.UTC);

    /**
     * One path through a shipped machine. {@code compareEnd} is false after a full-jitter retry (its
     * waits are random) and across the 360-day horizon wait (Node's timers hold at most 24.8 days, so
     * the other interpreter's wait ends after 1 ms).
     */
    record Scenario(String name, String definition, ObjectNode input, ObjectNode tasks, Instant deleteEntered,
            boolean compareEnd) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> scenarios() {
        String item = StateMachineDefinitions.expireItem("aws");
        String bucket = StateMachineDefinitions.expireBucket("aws", RUNNER);
        String runner = StateMachineDefinitions.runBucket("aws", BUCKET_FUNCTION);
        Instant due = START.plusSeconds(30);
        Instant horizon = START.plusSeconds(31_104_000);
        ObjectNode started = Json.MAPPER.createObjectNode()
                .put("ExecutionArn", "arn:aws:states:us-east-1:123456789012:execution:sm:chain-h0")
                .put("StartDate", 1.7e9);
        ObjectNode ran = Json.MAPPER.createObjectNode().put("Status", "SUCCEEDED").put("Name", "b");
        ran.putObject("Output").put("outcome", "Expired").put("items", 3).put("expired", 2).put("superseded", 1);
        ObjectNode worked = Json.MAPPER.createObjectNode().put("StatusCode", 200);
        worked.putObject("Payload").put("outcome", "Expired").put("items", 3).put("expired", 2).put("superseded", 1);
        return Stream.of(
                new Scenario("item due, deleted", item, itemInput(due, 0), itemTasks(result(empty())), due, true),
                new Scenario("item already due", item, itemInput(START.minusSeconds(5), 0), itemTasks(result(empty())),
                        START, true),
                new Scenario("item changed, superseded", item, itemInput(due, 0),
                        itemTasks(error("DynamoDB.ConditionalCheckFailedException", "The conditional request failed")),
                        due, true),
                new Scenario("item throttled twice, then deleted", item, itemInput(due, 0),
                        itemTasks(error("DynamoDB.ThrottlingException", "slow down"),
                                error("DynamoDB.ThrottlingException", "slow down"), result(empty())), due, false),
                new Scenario("item delete fails for good", item, itemInput(due, 0),
                        itemTasks(error("DynamoDB.ResourceNotFoundException", "Requested resource not found")), due, false),
                new Scenario("item beyond the horizon continues as new", item, itemInput(horizon.plusSeconds(60), 1),
                        horizonTasks(result(started)), null, false),
                new Scenario("item beyond the horizon, successor already started", item,
                        itemInput(horizon.plusSeconds(60), 1),
                        horizonTasks(error("StepFunctions.ExecutionAlreadyExistsException", "exists")), null, false),
                new Scenario("bucket due, its runner ran", bucket, bucketInput(START.plusSeconds(10)),
                        tasks(START_EXECUTION_SYNC, result(ran)), null, true),
                new Scenario("bucket's runner fails twice, then runs", bucket, bucketInput(START.plusSeconds(10)),
                        tasks(START_EXECUTION_SYNC, error("States.TaskFailed", "{\"Status\":\"FAILED\"}"),
                                error("States.TaskFailed", "{\"Status\":\"TIMED_OUT\"}"), result(ran)), null, false),
                new Scenario("bucket's runner always fails", bucket, bucketInput(START.plusSeconds(10)),
                        tasks(START_EXECUTION_SYNC, error("States.TaskFailed", "{\"Status\":\"FAILED\"}")), null, false),
                new Scenario("bucket's runner never ends", bucket, bucketInput(START.plusSeconds(10)),
                        tasks(START_EXECUTION_SYNC, Json.MAPPER.createObjectNode().put("never", true)), null, false),
                new Scenario("runner steps through two seconds, then is done", runner, bucketInput(START),
                        tasks(LAMBDA_INVOKE, result(step(START.plusSeconds(4))), result(step(START.plusSeconds(9))), result(worked)),
                        null, true),
                new Scenario("runner done in one step", runner, bucketInput(START), tasks(LAMBDA_INVOKE, result(worked)), null, true),
                new Scenario("runner step fails twice, then works", runner, bucketInput(START),
                        tasks(LAMBDA_INVOKE, error("Lambda.ServiceException", "boom"),
                                error("Lambda.TooManyRequestsException", "rate"), result(worked)), null, false),
                new Scenario("runner step always fails", runner, bucketInput(START),
                        tasks(LAMBDA_INVOKE, error("Lambda.ServiceException", "boom")), null, false),
                new Scenario("runner step never answers", runner, bucketInput(START),
                        tasks(LAMBDA_INVOKE, Json.MAPPER.createObjectNode().put("never", true)), null, false))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void shippedMachine_onBothInterpreters_agrees(Scenario scenario) {
        Optional<AwsLocalStepFunctions> other = AwsLocalStepFunctions.shared();
        assumeTrue(other.isPresent(), AwsLocalStepFunctions::whyUnavailable);
        JsonNode definition = Json.parse(scenario.definition());

        ObjectNode theirCase = Differential.nodeCase(withoutResultPathDollar(definition), scenario.input(), START,
                scenario.tasks());
        if (scenario.deleteEntered() != null) {
            ((ObjectNode) theirCase.get("context")).putObject("State")
                    .put("EnteredTime", CONTEXT_TIME.format(scenario.deleteEntered().truncatedTo(ChronoUnit.SECONDS)));
        }
        Differential run = new Differential(Differential.ours(definition, scenario.input(), START, scenario.tasks()),
                other.get().run(theirCase));

        List<String> disagreements = run.disagreements().stream()
                .filter(d -> scenario.compareEnd() || !d.startsWith("finished at"))
                .toList();
        assertThat(disagreements).as("ours %s%ntheirs %s", Differential.brief(run.ours()),
                Differential.brief(run.theirs())).isEmpty();
    }

    /**
     * The definition with every {@code "ResultPath": "$"} removed, which AWS defines as the same thing
     * (ResultPath defaults to {@code $}); aws-local-stepfunctions writes a result for {@code $} under a
     * key named {@code "$"} instead of replacing the input (a recorded divergence).
     */
    private static JsonNode withoutResultPathDollar(JsonNode definition) {
        JsonNode copy = definition.deepCopy();
        copy.get("States").forEach(state -> {
            if (state.path("ResultPath").asText("").equals("$")) {
                ((ObjectNode) state).remove("ResultPath");
            }
        });
        return copy;
    }

    private static ObjectNode itemInput(Instant expireAt, int horizonHops) {
        ObjectNode input = Json.MAPPER.createObjectNode();
        input.put("table", "orders");
        input.putObject("key").putObject("pk").put("S", "order-1");
        input.put("ttlAttribute", "expiresAt");
        input.put("ttl", String.valueOf(expireAt.getEpochSecond()));
        input.put("expireAt", expireAt.toString());
        input.put("horizonHops", horizonHops);
        input.put("chainName", "chain");
        return input;
    }

    private static ObjectNode bucketInput(Instant wakeAt) {
        ObjectNode input = Json.MAPPER.createObjectNode();
        input.put("table", "orders");
        input.put("level", "second");
        input.put("start", wakeAt.getEpochSecond());
        input.put("wakeAt", wakeAt.toString());
        return input;
    }

    /** A runner step's answer: the bucket's input and the runner's state, its next step due at {@code at}. */
    private static ObjectNode step(Instant at) {
        ObjectNode payload = bucketInput(START);
        payload.putObject("runner").put("phase", "delete").put("target", at.getEpochSecond()).put("at", at.toString())
                .put("next", at.getEpochSecond() + 60).put("items", 0).put("expired", 0).put("superseded", 0).put("seconds", 0);
        ObjectNode answer = Json.MAPPER.createObjectNode().put("StatusCode", 200);
        answer.set("Payload", payload);
        return answer;
    }

    /** The delete answers as given; a start of a successor, never reached, is answered too (ours checks every resource). */
    private static ObjectNode itemTasks(ObjectNode... deleteAnswers) {
        ObjectNode tasks = tasks(DELETE_ITEM, deleteAnswers);
        tasks.setAll(tasks(START_EXECUTION, error("Unexpected.Call", "no successor in this scenario")));
        return tasks;
    }

    private static ObjectNode horizonTasks(ObjectNode... startAnswers) {
        ObjectNode tasks = tasks(START_EXECUTION, startAnswers);
        tasks.setAll(tasks(DELETE_ITEM, error("Unexpected.Call", "no delete before the horizon")));
        return tasks;
    }

    private static ObjectNode tasks(String resource, ObjectNode... answers) {
        ObjectNode tasks = Json.MAPPER.createObjectNode();
        ArrayNode list = tasks.putArray(resource);
        for (ObjectNode answer : answers) {
            list.add(answer);
        }
        return tasks;
    }

    private static ObjectNode result(JsonNode value) {
        ObjectNode answer = Json.MAPPER.createObjectNode();
        answer.set("result", value);
        return answer;
    }

    private static ObjectNode error(String error, String cause) {
        return Json.MAPPER.createObjectNode().put("error", error).put("cause", cause);
    }

    private static ObjectNode empty() {
        return Json.MAPPER.createObjectNode();
    }
}
