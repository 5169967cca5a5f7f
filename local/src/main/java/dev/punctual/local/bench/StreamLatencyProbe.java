package dev.punctual.local.bench;

import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.local.dynamodb.DynamoDbLocalServer;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.stream.StreamPoller;
import dev.punctual.statemachine.StreamWiring;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Prints how long DynamoDB Local takes to start and how long a PutItem takes to reach the function
 * through the local stream poller (p50/p99 over spaced single puts, so each is a fresh record on an
 * idle shard, the case that matters for expiry accuracy).
 *
 * <p>Run: {@code java -cp local/target/punctual.jar dev.punctual.local.bench.StreamLatencyProbe [puts] [pollIntervalMillis]}
 */
public final class StreamLatencyProbe {

    private StreamLatencyProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        int puts = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Duration pollInterval = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1])
                : MappingSettings.DEFAULT_POLL_INTERVAL.toMillis());
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
             DynamoDbClient dynamoDb = LocalDynamoDbClients.dynamoDb(server.endpoint());
             DynamoDbStreamsClient streams = LocalDynamoDbClients.streams(server.endpoint())) {
            System.out.printf("dynamodb-local start: %d ms (port %d, bound to %s)%n", server.startTime().toMillis(),
                    server.port(), server.boundAddress().getHostAddress());
            dynamoDb.createTable(b -> b.tableName("probe").billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("id").attributeType(ScalarAttributeType.S).build())
                    .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build())
                    .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
            dynamoDb.updateTimeToLive(b -> b.tableName("probe").timeToLiveSpecification(t -> t.enabled(true).attributeName("ttl")));

            Map<String, Long> received = new ConcurrentHashMap<>();
            try (StreamPoller poller = StreamPoller.builder()
                    .dynamoDb(dynamoDb).streams(streams)
                    .handlerFactory(table -> (event, context) -> {
                        long now = System.nanoTime();
                        event.getRecords().forEach(r -> received.putIfAbsent(r.getDynamodb().getKeys().get("id").getS(), now));
                        return new StreamsEventResponse();
                    })
                    .filterPatterns(table -> StreamWiring.filterPatterns(table.ttlAttribute(), true))
                    .settings(MappingSettings.builder().pollInterval(pollInterval).build())
                    .start()) {
                for (int i = 0; i < 20; i++) {
                    put(dynamoDb, "warmup-" + i);
                }
                await(() -> received.size() == 20);
                List<Long> latencies = new ArrayList<>();
                for (int i = 0; i < puts; i++) {
                    String id = "item-" + i;
                    long before = System.nanoTime();
                    put(dynamoDb, id);
                    await(() -> received.containsKey(id));
                    latencies.add(received.get(id) - before);
                    // Spread the puts over the poll cycle so the figure is not phase-locked to it.
                    Thread.sleep(7 + i % 13);
                }
                Collections.sort(latencies);
                System.out.printf("put-to-handler latency over %d puts, poll interval %d ms: p50 %.1f ms, p90 %.1f ms,"
                                + " p99 %.1f ms, max %.1f ms%n", puts, pollInterval.toMillis(),
                        millis(latencies, 0.50), millis(latencies, 0.90), millis(latencies, 0.99),
                        latencies.get(latencies.size() - 1) / 1e6);
                System.out.println("metrics: " + poller.metrics().snapshot());
            }
        }
    }

    private static void put(DynamoDbClient dynamoDb, String id) {
        dynamoDb.putItem(b -> b.tableName("probe").item(Map.of("id", AttributeValue.fromS(id),
                "ttl", AttributeValue.fromN("4102444800"))));
    }

    private static double millis(List<Long> sorted, double quantile) {
        int index = (int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1);
        return sorted.get(Math.max(0, index)) / 1e6;
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("record did not reach the function within 30 s");
            }
            Thread.sleep(1);
        }
    }
}
