package dev.punctual.local.stepfunctions.recordings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.tasks.DynamoDbTaskResource;
import dev.punctual.local.stepfunctions.tasks.LoopbackDynamoDbLocal;
import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.ManualTimer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.client.config.SdkAdvancedClientOption;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * The parts a recorded case replays on: our engine behind its HTTP API on loopback, the real SDK's
 * {@link SfnClient} in front of it, DynamoDB Local behind the engine's DynamoDB Tasks, and a manual timer
 * that moves only when the engine has nothing left to do but wait, so a Wait of a minute costs no wall
 * time and a run ends the same way every time.
 */
final class ReplayRig implements AutoCloseable {

    static final String REGION = "us-east-1";
    static final String ACCOUNT = "111111111111";
    static final String ROLE_ARN = "arn:aws:iam::" + ACCOUNT + ":role/punctual-replay";
    /** How long nothing may move before a replay is declared stuck: progress, not a budget for the work. */
    private static final Duration STALL = Duration.ofSeconds(20);

    private final ManualTimer timer = ManualTimer.startingAt(Instant.parse("2024-03-10T16:00:00Z"));
    private final InFlight inFlight = new InFlight();
    private final LoopbackDynamoDbLocal dynamoDbLocal;
    private final StepFunctionsEngine engine;
    private final StepFunctionsServer server;
    private final SfnClient sfn;

    ReplayRig() throws Exception {
        dynamoDbLocal = new LoopbackDynamoDbLocal();
        engine = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run, new Random(46), REGION))
                .taskResources(List.of(new DynamoDbTaskResource(dynamoDbLocal.client())))
                .timer(timer)
                .region(REGION)
                .accountId(ACCOUNT)
                .inFlight(inFlight)
                .build();
        server = StepFunctionsServer.start(engine, new InetSocketAddress("127.0.0.1", 0));
        sfn = SfnClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                .region(Region.of(REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("replay", "replay")))
                .httpClient(Apache5HttpClient.create())
                // StartSyncExecution's endpoint is sync-<host>: a loopback address takes no prefix
                .overrideConfiguration(c -> c.putAdvancedOption(SdkAdvancedClientOption.DISABLE_HOST_PREFIX_INJECTION, true))
                .build();
    }

    SfnClient sfn() {
        return sfn;
    }

    DynamoDbClient dynamoDb() {
        return dynamoDbLocal.client();
    }

    StepFunctionsEngine engine() {
        return engine;
    }

    /**
     * Lets the engine work until {@code done}: whenever it is idle with a wake-up pending, the clock moves
     * to that wake-up. Fails when neither the engine nor the clock has moved for {@link #STALL}.
     */
    void runUntil(BooleanSupplier done, String what) {
        long lastMove = System.nanoTime();
        long lastHandedOver = -1;
        while (!done.getAsBoolean()) {
            long handedOver = inFlight.handedOver();
            if (handedOver != lastHandedOver) {
                lastHandedOver = handedOver;
                lastMove = System.nanoTime();
            }
            Instant next = timer.nextWorkWakeUp();
            if (inFlight.count() == 0 && next != null) {
                timer.advanceTo(next);
                lastMove = System.nanoTime();
                continue;
            }
            if (System.nanoTime() - lastMove > STALL.toNanos()) {
                throw new IllegalStateException(what + " made no progress for " + STALL.toSeconds()
                        + " s (nothing running, no wake-up pending)");
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while replaying " + what, e);
            }
        }
    }

    /** An SDK response or model object as the service's JSON: wire names, timestamps left out. */
    static JsonNode json(Object value) {
        if (value instanceof SdkPojo pojo) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            for (SdkField<?> field : pojo.sdkFields()) {
                Object member = field.getValueOrDefault(pojo);
                if (member != null && !(member instanceof Instant)
                        && !(member instanceof Collection<?> c && c.isEmpty() && isAutoConstruct(c))) {
                    out.set(field.locationName(), json(member));
                }
            }
            return out;
        }
        if (value instanceof List<?> list) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            list.forEach(element -> out.add(json(element)));
            return out;
        }
        if (value instanceof Map<?, ?> map) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            map.forEach((k, v) -> out.set(String.valueOf(k), json(v)));
            return out;
        }
        if (value instanceof Boolean b) {
            return JsonNodeFactory.instance.booleanNode(b);
        }
        if (value instanceof Long l) {
            // As a JSON parser reads the number, so that it equals the recording's (parsed) number: Jackson's
            // IntNode 100 and LongNode 100 are not equal.
            return l == (int) (long) l ? JsonNodeFactory.instance.numberNode((int) (long) l)
                    : JsonNodeFactory.instance.numberNode(l);
        }
        if (value instanceof Integer i) {
            return JsonNodeFactory.instance.numberNode(i);
        }
        return JsonNodeFactory.instance.textNode(String.valueOf(value));
    }

    private static boolean isAutoConstruct(Collection<?> c) {
        return c instanceof software.amazon.awssdk.core.util.SdkAutoConstructList<?>;
    }

    @Override
    public void close() {
        sfn.close();
        server.close();
        engine.close();
        dynamoDbLocal.close();
    }
}
