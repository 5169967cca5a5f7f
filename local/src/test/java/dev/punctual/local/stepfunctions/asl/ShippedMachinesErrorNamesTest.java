package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import dev.punctual.statemachine.StateMachineDefinitions;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every error name AWS is recorded or documented to give at each Task of the four shipped machines, injected
 * once (a transient failure, then the call works) and for good, with the outcome each must have: a transient
 * failure is retried whatever AWS calls it, {@code DynamoDB.ConditionalCheckFailedException} is never retried
 * and ends {@code Superseded}, an existing successor ends {@code SuccessorAlreadyStarted}, and a failure for
 * good fails the execution with that error after the Task's retries.
 *
 * <p>Where the names come from: the optimized DynamoDB integration was recorded answering
 * {@code DynamoDB.ResourceNotFoundException} and, for a {@code ValidationException},
 * {@code DynamoDB.AmazonDynamoDBException} (LocalStack's parity snapshots, {@code aws-recordings}); the rest are
 * the DynamoDB DeleteItem and common errors, Step Functions StartExecution's and Lambda Invoke's, each either as
 * the SDK's modelled class or as the base exception a name the model lacks becomes, plus {@code States.Timeout}
 * and {@code States.TaskFailed}.
 */
class ShippedMachinesErrorNamesTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final String DELETE_ITEM = "arn:aws:states:::dynamodb:deleteItem";
    private static final String START_EXECUTION = "arn:aws:states:::states:startExecution";
    private static final String START_EXECUTION_SYNC = "arn:aws:states:::states:startExecution.sync:2";
    private static final String LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke";
    private static final String RUNNER = "arn:aws:states:us-east-1:123456789012:stateMachine:runner";
    private static final String FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:f:live";

    /** DeleteItem's errors as the optimized integration names them (modelled classes, or its base exception). */
    static final List<String> DYNAMODB_TRANSIENT = List.of(
            "DynamoDB.AmazonDynamoDBException", "DynamoDB.ProvisionedThroughputExceededException",
            "DynamoDB.RequestLimitExceededException", "DynamoDB.RequestLimitExceeded", "DynamoDB.ThrottlingException",
            "DynamoDB.InternalServerErrorException", "DynamoDB.InternalServerError",
            "DynamoDB.ServiceUnavailableException", "DynamoDB.TransactionConflictException",
            "DynamoDB.ReplicatedWriteConflictException", "DynamoDB.ItemCollectionSizeLimitExceededException",
            "DynamoDB.ResourceNotFoundException", "DynamoDB.SdkClientException", "States.Timeout", "States.TaskFailed");
    static final List<String> START_EXECUTION_TRANSIENT = List.of(
            "StepFunctions.AWSStepFunctionsException", "StepFunctions.SfnException",
            "StepFunctions.ThrottlingException", "StepFunctions.ExecutionLimitExceededException",
            "StepFunctions.InternalServerErrorException", "StepFunctions.StateMachineDoesNotExistException",
            "StepFunctions.StateMachineDeletingException", "StepFunctions.SdkClientException", "States.Timeout",
            "States.TaskFailed");
    static final List<String> LAMBDA_TRANSIENT = List.of(
            "Lambda.ServiceException", "Lambda.AWSLambdaException", "Lambda.LambdaException", "Lambda.SdkClientException",
            "Lambda.TooManyRequestsException", "Lambda.ResourceConflictException", "Lambda.Unknown",
            "java.lang.RuntimeException", "States.Timeout", "States.TaskFailed");

    record Case(String name, String definition, ObjectNode input, ObjectNode tasks, String outcome) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> transientFailures() {
        Stream<Case> item = DYNAMODB_TRANSIENT.stream().map(error -> new Case(
                "expire-item DeleteIfUnchanged: " + error + " once", item(), itemInput(0),
                tasks(DELETE_ITEM, error(error), result(Json.MAPPER.createObjectNode())), "Expired"));
        Stream<Case> itemSuccessor = START_EXECUTION_TRANSIENT.stream().map(error -> new Case(
                "expire-item ContinueAsNewExecution: " + error + " once", item(), itemInput(1),
                tasks(START_EXECUTION, error(error), result(started())), "ContinuedAsNew"));
        Stream<Case> bucket = Stream.concat(START_EXECUTION_TRANSIENT.stream(), Stream.of("States.TaskFailed"))
                .map(error -> new Case("expire-bucket RunBucket: " + error + " once", bucket(), bucketInput(),
                        tasks(START_EXECUTION_SYNC, error(error), result(ran())), "Expired"));
        Stream<Case> runner = LAMBDA_TRANSIENT.stream().map(error -> new Case(
                "run-bucket Step: " + error + " once", runner(), bucketInput(),
                tasks(LAMBDA_INVOKE, error(error), result(worked())), "Expired"));
        Stream<Case> backfill = LAMBDA_TRANSIENT.stream().map(error -> new Case(
                "backfill PrepareRun: " + error + " once", backfill(), backfillInput(),
                tasks(LAMBDA_INVOKE, error(error), result(prepared()), result(finished(true))), "Backfilled"));
        Stream<Case> backfillSuccessor = START_EXECUTION_TRANSIENT.stream().map(error -> new Case(
                "backfill ContinueAsNewExecution: " + error + " once", backfill(), backfillInput(),
                merge(tasks(LAMBDA_INVOKE, result(prepared()), result(finished(false))),
                        tasks(START_EXECUTION, error(error), result(started()))), "ContinuedAsNew"));
        return Stream.of(item, itemSuccessor, bucket, runner, backfill, backfillSuccessor).flatMap(s -> s)
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transientFailures")
    void shippedMachine_whenTaskFailsOnceWithAnyAwsName_retriesAndSucceeds(Case c) {
        ManualClockRun run = ManualClockRun.run(Json.parse(c.definition()), c.input(), START, all(c.tasks()));

        assertThat(run.outcome()).as(c.name()).isNotNull();
        assertThat(run.outcome().status()).as(c.name() + ": " + run.outcome()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        if (!"Backfilled".equals(c.outcome())) {
            assertThat(run.outcome().output().path("outcome").asText()).isEqualTo(c.outcome());
        }
        assertThat(run.observer.eventTypes().stream().filter("TaskFailed"::equals)).as("the one failure").hasSize(1);
    }

    static Stream<Arguments> failuresForGood() {
        return Stream.concat(DYNAMODB_TRANSIENT.stream().map(error -> new Case(
                        "expire-item DeleteIfUnchanged: " + error + " for good", item(), itemInput(0),
                        tasks(DELETE_ITEM, error(error)), error)),
                START_EXECUTION_TRANSIENT.stream().map(error -> new Case(
                        "expire-item ContinueAsNewExecution: " + error + " for good", item(), itemInput(1),
                        tasks(START_EXECUTION, error(error)), error)))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failuresForGood")
    void expireItem_whenTaskFailsForGood_failsWithThatErrorAfterNineAttempts(Case c) {
        ManualClockRun run = ManualClockRun.run(Json.parse(c.definition()), c.input(), START, all(c.tasks()));

        assertThat(run.outcome().status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(run.outcome().error()).isEqualTo(c.outcome());
        assertThat(run.observer.eventTypes().stream().filter("TaskFailed"::equals)).as("one try and 8 retries").hasSize(9);
    }

    @org.junit.jupiter.api.Test
    void expireItem_whenConditionalCheckFails_endsSupersededWithoutRetry() {
        ManualClockRun run = ManualClockRun.run(Json.parse(item()), itemInput(0), START, all(
                tasks(DELETE_ITEM, error("DynamoDB.ConditionalCheckFailedException"), result(Json.MAPPER.createObjectNode()))));

        assertThat(run.outcome().status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
        assertThat(run.outcome().output()).isEqualTo(Json.parse("{\"outcome\":\"Superseded\"}"));
        assertThat(run.observer.eventTypes().stream().filter("TaskScheduled"::equals)).as("no retry").hasSize(1);
    }

    @org.junit.jupiter.api.Test
    void successorStart_whenNameTaken_endsSuccessorAlreadyStartedWithoutRetry() {
        ManualClockRun item = ManualClockRun.run(Json.parse(item()), itemInput(1), START, all(
                tasks(START_EXECUTION, error("StepFunctions.ExecutionAlreadyExistsException"), result(started()))));
        ManualClockRun backfill = ManualClockRun.run(Json.parse(backfill()), backfillInput(), START, all(
                merge(tasks(LAMBDA_INVOKE, result(prepared()), result(finished(false))),
                        tasks(START_EXECUTION, error("StepFunctions.ExecutionAlreadyExistsException"), result(started())))));

        for (ManualClockRun run : List.of(item, backfill)) {
            assertThat(run.outcome().status()).isEqualTo(RunOutcome.Status.SUCCEEDED);
            assertThat(run.observer.eventTypes().stream().filter("TaskScheduled"::equals).count())
                    .as("no retry").isEqualTo(backfill == run ? 3 : 1);
            assertThat(run.observer.events.stream().filter(e -> e.type().equals("PassStateEntered"))
                    .map(e -> e.details().path("name").asText())).endsWith("SuccessorAlreadyStarted");
        }
    }

    @org.junit.jupiter.api.Test
    void backfill_whenInputRefused_failsWithoutRetry() {
        ManualClockRun run = ManualClockRun.run(Json.parse(backfill()), backfillInput(), START,
                all(tasks(LAMBDA_INVOKE, error("dev.punctual.backfill.BackfillInputException"))));

        assertThat(run.outcome().status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(run.outcome().error()).isEqualTo("dev.punctual.backfill.BackfillInputException");
        assertThat(run.observer.eventTypes().stream().filter("TaskFailed"::equals)).hasSize(1);
    }

    private static String item() {
        return StateMachineDefinitions.expireItem("aws");
    }

    private static String bucket() {
        return StateMachineDefinitions.expireBucket("aws", RUNNER);
    }

    private static String runner() {
        return StateMachineDefinitions.runBucket("aws", FUNCTION);
    }

    private static String backfill() {
        return StateMachineDefinitions.backfill("aws", FUNCTION);
    }

    private static ObjectNode itemInput(int horizonHops) {
        Instant expireAt = horizonHops == 0 ? START.plusSeconds(30) : START.plusSeconds(31_104_000 + 60);
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

    private static ObjectNode bucketInput() {
        Instant wakeAt = START.plusSeconds(10);
        ObjectNode input = Json.MAPPER.createObjectNode();
        input.put("table", "orders");
        input.put("level", "second");
        input.put("start", wakeAt.getEpochSecond());
        input.put("wakeAt", wakeAt.toString());
        return input;
    }

    private static ObjectNode backfillInput() {
        return Json.MAPPER.createObjectNode().put("table", "orders");
    }

    private static ObjectNode started() {
        return Json.MAPPER.createObjectNode()
                .put("ExecutionArn", "arn:aws:states:us-east-1:123456789012:execution:sm:chain-h0")
                .put("StartDate", 1.7e9);
    }

    private static ObjectNode ran() {
        ObjectNode ran = Json.MAPPER.createObjectNode().put("Status", "SUCCEEDED").put("Name", "b");
        ran.putObject("Output").put("outcome", "Expired").put("items", 3).put("expired", 2).put("superseded", 1);
        return ran;
    }

    private static ObjectNode worked() {
        ObjectNode worked = Json.MAPPER.createObjectNode().put("StatusCode", 200);
        worked.putObject("Payload").put("outcome", "Expired").put("items", 3).put("expired", 2).put("superseded", 1);
        return worked;
    }

    /** PrepareRun's answer: one segment, so ScanSegments runs ScanPage once (answered by the next canned call). */
    private static ObjectNode prepared() {
        ObjectNode payload = Json.MAPPER.createObjectNode().put("table", "orders").put("run", "r1").put("pagesPerSegment", 1);
        payload.putArray("segmentList");
        return Json.MAPPER.createObjectNode().put("StatusCode", 200).set("Payload", payload);
    }

    private static ObjectNode finished(boolean complete) {
        ObjectNode payload = Json.MAPPER.createObjectNode().put("complete", complete)
                .put("successor", "backfill-2");
        payload.putObject("successorInput").put("table", "orders");
        return Json.MAPPER.createObjectNode().put("StatusCode", 200).set("Payload", payload);
    }

    private static ObjectNode error(String error) {
        return Json.MAPPER.createObjectNode().put("error", error).put("cause", "injected " + error);
    }

    private static ObjectNode result(JsonNode result) {
        ObjectNode answer = Json.MAPPER.createObjectNode();
        answer.set("result", result);
        return answer;
    }

    private static ObjectNode tasks(String resource, ObjectNode... answers) {
        ObjectNode tasks = Json.MAPPER.createObjectNode();
        ArrayNode list = tasks.putArray(resource);
        for (ObjectNode answer : answers) {
            list.add(answer);
        }
        return tasks;
    }

    /** Our interpreter checks every resource at parse: the one a case does not reach answers an error. */
    private static ObjectNode all(ObjectNode tasks) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        for (String resource : List.of(DELETE_ITEM, START_EXECUTION, START_EXECUTION_SYNC, LAMBDA_INVOKE)) {
            out.set(resource, Json.MAPPER.createArrayNode().add(error("Unexpected.Call")));
        }
        out.setAll(tasks);
        return out;
    }

    private static ObjectNode merge(ObjectNode a, ObjectNode b) {
        a.setAll(b);
        return a;
    }
}
