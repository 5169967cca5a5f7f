package dev.punctual.local.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.stepfunctions.tasks.LoopbackDynamoDbLocal;
import dev.punctual.statemachine.StreamWiring;
import dev.punctual.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
 * Replays what AWS recorded of DynamoDB Streams delivered through a Lambda event source mapping
 * (LocalStack's {@code test_lambda_integration_dynamodbstreams} snapshot, in
 * {@code src/test/resources/aws-recordings/streams}, see the {@code NOTICE} one level up) through our
 * {@link StreamPoller}, its filter criteria and its dead-letter store, and compares what our function was
 * given, and what our on-failure message says, with what AWS gave and said ({@link SnapshotMatch}).
 *
 * <p>Each case ({@link StreamRecordedCase}) creates its table on DynamoDB Local, starts a poller with the
 * recorded mapping's parameters and filter criteria, writes the recorded items with the SDK, waits until
 * the poller has handled every record it read, and compares. The poller watches only tables with TTL on,
 * as Punctual's mapping does; each table gets TTL on an attribute no recorded item has, which changes no
 * stream record. A case that differs must say why in its manifest entry ({@code difference}); the test
 * fails on a difference that is not named there, and on a named one that no longer occurs.
 *
 * <p>Prints {@code AWS stream recordings: matched M of N}; every case's differences are in
 * {@code target/aws-stream-recordings.txt}.
 */
class StreamRecordingsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long one step may take to be handled (a batching window is at most 1 s in the recordings). */
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** An attribute no recorded item has, to turn TTL on with (the poller watches tables with TTL only). */
    static final String UNUSED_TTL_ATTRIBUTE = "punctual_replay_ttl";

    private static LocalTables local;

    @BeforeAll
    static void startDynamoDbLocal() {
        local = new LocalTables();
    }

    @AfterAll
    static void stopDynamoDbLocal() {
        local.close();
    }

    private record Outcome(StreamRecordedCase recordedCase, List<String> differences) {
        boolean matched() {
            return differences.isEmpty();
        }
    }

    @Test
    void replay_ofWhatAwsDelivered_deliversTheSameRecordsThroughTheSameFilters() throws Exception {
        List<StreamRecordedCase> cases = StreamRecordedCase.load(Path.of(
                StreamRecordingsTest.class.getResource("/aws-recordings/streams/manifest.json").toURI()));
        List<Outcome> outcomes = new ArrayList<>();
        for (StreamRecordedCase recordedCase : cases) {
            outcomes.add(new Outcome(recordedCase, replay(recordedCase)));
        }

        List<String> unexpected = new ArrayList<>();
        StringBuilder report = new StringBuilder();
        for (Outcome outcome : outcomes) {
            StreamRecordedCase c = outcome.recordedCase();
            report.append(outcome.matched() ? "MATCH " : "DIFF  ").append(c.id());
            outcome.differences().forEach(d -> report.append("\n    ").append(d));
            report.append('\n');
            if (c.difference() == null && !outcome.matched()) {
                unexpected.add(c.id() + " differs from AWS:\n    " + String.join("\n    ", outcome.differences()));
            } else if (c.difference() != null && outcome.matched()) {
                unexpected.add(c.id() + " now matches AWS: remove its 'difference' (" + c.difference() + ")");
            } else if (c.difference() != null) {
                System.out.println("known difference " + c.id() + ": " + c.difference() + "\n    "
                        + String.join("\n    ", outcome.differences()));
            }
        }
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "aws-stream-recordings.txt"), report);
        long matched = outcomes.stream().filter(Outcome::matched).count();
        System.out.println("AWS stream recordings: matched " + matched + " of " + outcomes.size());
        assertThat(unexpected).as("cases whose outcome is not what the manifest records").isEmpty();
    }

    /**
     * The recordings hold no delete by DynamoDB's TTL. AWS documents what such a record carries
     * (DynamoDB Streams API reference, {@code Record.userIdentity}: "Items that are deleted by the Time to
     * Live process after expiration have the following fields: {@code Records[].userIdentity.type}
     * "Service", {@code Records[].userIdentity.principalId} "dynamodb.amazonaws.com""). The runtime's
     * DynamoDB Local never deletes by TTL (Punctual is the TTL there), so this runs DynamoDB Local as
     * shipped, whose TTL job does, and checks that the REMOVE it writes reaches the function through our
     * poller and the filter criteria Punctual deploys, with that identity.
     */
    @Test
    void ttlDelete_byDynamoDbLocalsOwnTtlJob_reachesTheFunctionWithTheServiceIdentityAwsDocuments() throws Exception {
        try (LoopbackDynamoDbLocal shipped = new LoopbackDynamoDbLocal();
             DynamoDbStreamsClient streams = LocalDynamoDbClients.streams(shipped.endpoint())) {
            DynamoDbClient dynamoDb = shipped.client();
            String table = "native-ttl";
            dynamoDb.createTable(b -> b.tableName(table)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("id")
                            .attributeType(ScalarAttributeType.S).build())
                    .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build())
                    .streamSpecification(stream -> stream.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
            dynamoDb.updateTimeToLive(b -> b.tableName(table)
                    .timeToLiveSpecification(ttl -> ttl.enabled(true).attributeName("expiresAt")));
            RecordedFunction function = new RecordedFunction(JSON.createObjectNode().put("echo", true));
            try (StreamPoller poller = StreamPoller.builder()
                    .dynamoDb(dynamoDb)
                    .streams(streams)
                    .handlerFactory(watched -> function)
                    .filterPatterns(watched -> StreamWiring.filterPatterns(watched.ttlAttribute(), true))
                    .settings(MappingSettings.builder().pollInterval(Duration.ofMillis(50)).retryDelay(Duration.ZERO)
                            .discoveryInterval(Duration.ofMillis(100)).tableAllowList(Set.of(table)).build())
                    .start()) {
                long expired = Instant.now().minus(Duration.ofHours(1)).getEpochSecond();
                dynamoDb.putItem(b -> b.tableName(table).item(Map.of(
                        "id", AttributeValue.fromS("gone"), "expiresAt", AttributeValue.fromN(Long.toString(expired)))));

                JsonNode remove = Await.value("DynamoDB Local's TTL job to delete the expired item", Duration.ofSeconds(90),
                        () -> function.events().stream().flatMap(event -> java.util.stream.StreamSupport.stream(
                                        event.path("Records").spliterator(), false))
                                .filter(record -> record.path("eventName").asText().equals("REMOVE")).findFirst());

                System.out.println("TTL REMOVE from DynamoDB Local, as our function got it: " + remove);
                assertThat(remove.get("userIdentity"))
                        .isEqualTo(JSON.readTree("{\"type\": \"Service\", \"principalId\": \"dynamodb.amazonaws.com\"}"));
                assertThat(iterable(remove.fieldNames())).containsExactlyInAnyOrder("eventID", "eventName", "eventVersion",
                        "eventSource", "awsRegion", "dynamodb", "eventSourceARN", "userIdentity");
                assertThat(remove.at("/dynamodb/OldImage/expiresAt/N").asText()).isEqualTo(Long.toString(expired));
            }
        }
    }

    @Test
    void manifest_withAnEntryTheReplayCannotCarryOut_isRefusedNamingWhatIsWrong(@TempDir Path directory) throws Exception {
        Files.writeString(directory.resolve("s.snapshot.json"),
                "{\"f.py::T::t\": {\"recorded-content\": {\"events\": []}}}");
        String entry = "{\"test\": \"T::t\", \"table\": {\"partitionKey\": \"id\", \"streamViewType\": \"NEW_IMAGE\"},"
                + " \"function\": {\"echo\": true}, \"steps\": [{\"put\": [], \"compare\": [{\"recorded\": \"/events\","
                + " \"ours\": \"invocations\"}]}], \"mapping\": %s}";
        Path manifest = directory.resolve("manifest.json");

        Files.writeString(manifest, "{\"snapshot\": \"s.snapshot.json\", \"cases\": [" + entry.formatted("{\"TumblingWindowInSeconds\": 5}") + "]}");
        assertThatThrownBy(() -> StreamRecordedCase.load(manifest)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("case T::t").hasMessageContaining("mapping has 'TumblingWindowInSeconds'");

        Files.writeString(manifest, "{\"snapshot\": \"s.snapshot.json\", \"cases\": [" + entry.formatted("{}")
                .replace("/events", "/event_logs") + "]}");
        assertThatThrownBy(() -> StreamRecordedCase.load(manifest)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'/event_logs' points at nothing in the recording; it has [events]");

        Files.writeString(manifest, "{\"snapshot\": \"s.snapshot.json\", \"cases\": [" + entry.formatted("{}")
                .replace("T::t", "T::missing") + "]}");
        assertThatThrownBy(() -> StreamRecordedCase.load(manifest)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no recording ending in ::T::missing");
    }

    private static List<String> iterable(java.util.Iterator<String> names) {
        List<String> list = new ArrayList<>();
        names.forEachRemaining(list::add);
        return list;
    }

    private static List<String> replay(StreamRecordedCase recordedCase) {
        try {
            return replayOrThrow(recordedCase);
        } catch (RuntimeException | java.io.IOException e) {
            return List.of("the replay failed: " + e);
        }
    }

    private static List<String> replayOrThrow(StreamRecordedCase recordedCase) throws java.io.IOException {
        String table = createTable(recordedCase);
        RecordedFunction function = new RecordedFunction(recordedCase.function());
        StreamPoller.Builder builder = StreamPoller.builder()
                .dynamoDb(local.dynamoDb)
                .streams(local.streams)
                .handlerFactory(watched -> function)
                .filterPatterns(watched -> recordedCase.mapping().filterPatterns())
                .settings(recordedCase.mapping().settings()
                        .pollInterval(Duration.ofMillis(20))
                        .retryDelay(Duration.ZERO)
                        .discoveryInterval(Duration.ofMillis(100))
                        .tableAllowList(Set.of(table)).build());
        if (recordedCase.refused() != null) {
            return refused(recordedCase, builder);
        }
        List<String> differences = new ArrayList<>();
        SnapshotMatch match = new SnapshotMatch();
        try (StreamPoller poller = builder.start()) {
            if (!poller.watchedTables().stream().map(WatchedTable::tableName).toList().equals(List.of(table))) {
                throw new IllegalStateException("the poller does not watch " + table + ": " + poller.watchedTables());
            }
            for (StreamRecordedCase.Step step : recordedCase.steps()) {
                for (int i = 0; i < step.puts().size(); i++) {
                    if (i > 0 && !step.pause().isZero()) {
                        Thread.sleep(step.pause().toMillis());
                    }
                    Map<String, AttributeValue> item = step.puts().get(i);
                    local.dynamoDb.putItem(b -> b.tableName(table).item(item));
                }
                settle(poller);
                for (StreamRecordedCase.Comparison comparison : step.comparisons()) {
                    differences.addAll(match.compare(comparison.recorded(),
                            recordedCase.recorded().at(comparison.recorded()),
                            ours(comparison.ours(), recordedCase, function, poller)));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return differences;
    }

    /** AWS refused to create the mapping; our poller must refuse to start with it. */
    private static List<String> refused(StreamRecordedCase recordedCase, StreamPoller.Builder builder) {
        JsonNode error = recordedCase.recorded().at(recordedCase.refused());
        StreamPoller poller;
        try {
            poller = builder.start();
        } catch (IllegalArgumentException refusal) {
            System.out.println(recordedCase.id() + ": AWS refused with " + error.at("/Error/Code").asText() + " \""
                    + error.at("/Error/Message").asText() + "\"; ours with \"" + refusal.getMessage() + "\"");
            return error.at("/Error/Code").asText().equals("InvalidParameterValueException") ? List.of()
                    : List.of("AWS answered " + error + ", ours refused the pattern as invalid: " + refusal.getMessage());
        }
        poller.close();
        return List.of("AWS refused the mapping (" + error.at("/Error/Code").asText() + ": "
                + error.at("/Error/Message").asText() + "), ours started with it");
    }

    private static String createTable(StreamRecordedCase recordedCase) {
        String name = LocalTables.uniqueName("recorded");
        local.dynamoDb.createTable(b -> b.tableName(name)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder().attributeName(recordedCase.partitionKey())
                        .attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName(recordedCase.partitionKey()).keyType(KeyType.HASH).build())
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(recordedCase.streamViewType())));
        local.enableTtl(name, UNUSED_TTL_ATTRIBUTE);
        return name;
    }

    /**
     * Waits until the poller has handled (handed over, filtered out or dead-lettered) every record it read,
     * and a pass begun after the writes found nothing more to read.
     */
    private static void settle(StreamPoller poller) {
        Await.until(() -> "the poller to handle every record written: " + poller.metrics().snapshot(), WAIT, () -> {
            Map<String, Long> looks = poller.lookNow();
            Await.until("a pass of the poller that finds nothing new", WAIT, () -> poller.quietSince(looks));
            return poller.metrics().snapshot().backlog() == 0;
        });
    }

    private static JsonNode ours(String what, StreamRecordedCase recordedCase, RecordedFunction function,
                                 StreamPoller poller) throws java.io.IOException {
        return switch (what) {
            case "invocations" -> JSON.valueToTree(function.events());
            case "recordsSortedByPartitionKey" -> {
                List<JsonNode> records = new ArrayList<>();
                function.events().forEach(event -> event.path("Records").forEach(records::add));
                records.sort(Comparator.comparing(record -> record.path("dynamodb").path("Keys")
                        .path(recordedCase.partitionKey()).path("S").asText()));
                ObjectNode sorted = JSON.createObjectNode();
                sorted.putArray("Records").addAll(records);
                yield sorted;
            }
            case "onFailureMessage" -> onlyDeadLetter(poller).message();
            case "onFailureS3Object" -> {
                DeadLetter letter = onlyDeadLetter(poller);
                ObjectNode object = letter.message().deepCopy();
                ArrayNode records = object.putObject("payload").putArray("Records");
                letter.records().forEach(record -> records.add(LambdaRecordJson.toJson(record)));
                yield JSON.readTree(JSON.writeValueAsString(object));
            }
            default -> throw new IllegalArgumentException("nothing of ours is called " + what);
        };
    }

    private static DeadLetter onlyDeadLetter(StreamPoller poller) {
        List<DeadLetter> letters = poller.deadLetters().list();
        if (letters.size() != 1) {
            throw new IllegalStateException("AWS sent one on-failure message; our poller filed " + letters.size()
                    + " dead letters");
        }
        return letters.get(0);
    }
}
