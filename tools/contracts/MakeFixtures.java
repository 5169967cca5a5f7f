import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.runtime.LocalClients;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.PunctualVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * Makes the contract fixtures by running a released Punctual (its punctual.jar on the class path; see
 * tools/contracts/make-fixtures.sh): for each mode, the embedded runtime on a data directory and a
 * manual timer, a watched table with expirations pending (per item; windowed in minute and hour buckets,
 * a minute's runner stopped halfway), a backfill stopped after its first page, and (windowed) a dead
 * letter; then every execution's input, the index and progress items and the ItemExpired events as the
 * release wrote them, and the data directory itself, copied after the runtime stopped, with the list of
 * its files and their SHA-256 digests ({@code data-dir.sha256}, as {@code sha256sum} writes it): the
 * upgrade trial copies exactly those files, so files a build directory kept from an earlier generation of
 * the fixture never join the data directory it starts on.
 *
 * <p>Usage: {@code java -cp punctual.jar MakeFixtures.java OUT_DIR}
 */
public final class MakeFixtures {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final String TABLE = "orders";
    static final String LEGACY = "legacy";
    static final String KEY = "id";
    static final String TTL = "expiresAt";
    /** The data directory's files and their digests, beside it: what the upgrade trial copies, and checks. */
    static final String DATA_DIR_LISTING = "data-dir.sha256";

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        Files.createDirectories(out);
        for (ExpiryMode mode : ExpiryMode.values()) {
            make(mode, out.resolve(mode.label()));
        }
        // The runtime's own threads (DynamoDB Local's among them) need not keep this process alive.
        System.exit(0);
    }

    private static void make(ExpiryMode mode, Path out) throws Exception {
        Path data = Files.createTempDirectory("punctual-fixture-");
        // The runtime's time runs ten years ahead of the wall clock, so no TTL of the fixture is past by the wall
        // clock while it is kept: DynamoDB Local's own TTL job, which runs when it opens the database, before the
        // runtime stops it, would delete such items itself. A whole minute 25 s after the start: the minute's
        // items and its runner fall on the same seconds every time.
        long minute = (Instant.now().plus(Duration.ofDays(3650)).getEpochSecond() + 25 + 59) / 60 * 60;
        Instant start = Instant.ofEpochSecond(minute - 25);
        ManualTimer timer = ManualTimer.startingAt(start);
        MappingSettings mapping = MappingSettings.builder().maximumRetryAttempts(1).retryDelay(Duration.ofMillis(100)).build();
        Map<String, Long> items = new LinkedHashMap<>();
        Map<String, Long> legacy = new LinkedHashMap<>();
        List<String> expiredBefore = new ArrayList<>();
        ObjectNode manifest = JSON.createObjectNode();
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode)
                .withDataDirectory(data).withTimer(timer).withMapping(mapping));
             SfnClient sfn = LocalClients.stepFunctions(runtime.endpoints().stepFunctions())) {
            SkippedTime time = SkippedTime.of(runtime);
            DynamoDbClient dynamoDb = runtime.dynamoDb();
            createTable(dynamoDb, TABLE, true);
            watch(runtime, TABLE);
            // Due while the release runs (its ItemExpired events), in the minute the release stops in, in the
            // next minute, and (windowed: an hour bucket) 80 minutes out.
            items.put("early-1", minute + 2);
            items.put("early-2", minute + 2);
            items.put("mid-1", minute + 30);
            items.put("mid-2", minute + 31);
            items.put("mid-3", minute + 45);
            items.put("next-1", minute + 70);
            items.put("next-2", minute + 71);
            items.put("hour-1", minute + 80 * 60 + 5);
            items.put("hour-2", minute + 80 * 60 + 6);
            write(dynamoDb, TABLE, items);
            time.advance(Duration.ofSeconds(5));
            if (mode == ExpiryMode.WINDOWED) {
                // Every DynamoDB call fails while one item is written: the handler's index write, retried once
                // by the mapping, then dead-lettered.
                runtime.faults().dynamoDb().failFraction(1.0, "AccessDeniedException", 1);
                Map<String, Long> lettered = Map.of("dead-letter-1", minute + 50);
                write(dynamoDb, TABLE, lettered);
                for (int i = 0; i < 200 && runtime.streamPoller().deadLetters().list().isEmpty(); i++) {
                    timer.advance(Duration.ofMillis(100));
                    Thread.sleep(50);
                }
                runtime.faults().dynamoDb().clear();
                if (runtime.streamPoller().deadLetters().list().isEmpty()) {
                    throw new IllegalStateException("no dead letter was filed");
                }
                items.putAll(lettered);
                manifest.put("deadLetters", runtime.streamPoller().deadLetters().list().size());
            }
            // A table written before Punctual was attached (no stream): a backfill, one start a second in pages
            // of 2, stopped after its first pages.
            createTable(dynamoDb, LEGACY, false);
            for (int i = 1; i <= 10; i++) {
                legacy.put("old-" + i, minute + 150 + 3L * i);
            }
            write(dynamoDb, LEGACY, legacy);
            String backfillInput = "{\"table\":\"" + LEGACY + "\",\"segments\":1,\"pageSize\":2,\"startsPerSecond\":1}";
            time.advanceTo(Instant.ofEpochSecond(minute + 10));
            sfn.startExecution(r -> r.stateMachineArn(LocalDefaults.backfillStateMachineArn()).name("fixture-backfill")
                    .input(backfillInput));
            // Halfway through the minute: its runner has deleted its first seconds and waits for the next. The
            // paced backfill sleeps on the timer, so time moves in small steps here (no TTL falls in them).
            while (timer.clock().instant().isBefore(Instant.ofEpochSecond(minute + 15))) {
                timer.advance(Duration.ofMillis(250));
                Thread.sleep(25);
            }
            Instant stoppedAt = timer.clock().instant();
            for (String id : items.keySet()) {
                if (!dynamoDb.getItem(r -> r.tableName(TABLE).consistentRead(true)
                        .key(Map.of(KEY, AttributeValue.fromS(id)))).hasItem()) {
                    expiredBefore.add(id);
                }
            }
            captureExecutions(sfn, out.resolve("executions"));
            Files.writeString(out.resolve("index-items.json"), scan(dynamoDb, "punctual-schedule-index"));
            Files.writeString(out.resolve("progress-items.json"), scan(dynamoDb, "punctual-backfill-progress"));
            manifest.put("punctualVersion", PunctualVersion.current());
            manifest.put("mode", mode.label());
            manifest.put("startedAt", start.toString());
            manifest.put("stoppedAt", stoppedAt.toString());
            manifest.put("table", TABLE);
            manifest.put("backfillTable", LEGACY);
            manifest.set("items", JSON.valueToTree(items));
            manifest.set("backfillItems", JSON.valueToTree(legacy));
            manifest.set("expiredBefore", JSON.valueToTree(expiredBefore));
        }
        Path events = data.resolve("events").resolve("events.jsonl");
        if (Files.exists(events)) {
            Files.copy(events, out.resolve("item-expired-events.jsonl"));
        }
        copy(data, out.resolve("data-dir"));
        Files.writeString(out.resolve(DATA_DIR_LISTING), listing(out.resolve("data-dir")));
        Files.writeString(out.resolve("fixture.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(manifest));
        System.out.println(mode.label() + ": " + out + " " + manifest);
    }

    private static void createTable(DynamoDbClient dynamoDb, String name, boolean stream) {
        dynamoDb.createTable(r -> {
            r.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST)
                    .keySchema(k -> k.attributeName(KEY).keyType(KeyType.HASH))
                    .attributeDefinitions(a -> a.attributeName(KEY).attributeType(ScalarAttributeType.S));
            if (stream) {
                r.streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES));
            }
        });
        dynamoDb.updateTimeToLive(r -> r.tableName(name).timeToLiveSpecification(t -> t.enabled(true).attributeName(TTL)));
    }

    private static void watch(LocalRuntime runtime, String table) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            runtime.streamPoller().discoverTables();
            if (runtime.streamPoller().watchedTables().stream().anyMatch(t -> t.tableName().equals(table))) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(table + " never watched");
    }

    private static void write(DynamoDbClient dynamoDb, String table, Map<String, Long> items) {
        items.forEach((id, ttl) -> dynamoDb.putItem(r -> r.tableName(table).item(Map.of(KEY, AttributeValue.fromS(id),
                TTL, AttributeValue.fromN(Long.toString(ttl)), "payload", AttributeValue.fromS("contract fixture")))));
    }

    /** Every execution's input, as DescribeExecution answers it, one file per state machine. */
    private static void captureExecutions(SfnClient sfn, Path dir) throws Exception {
        Files.createDirectories(dir);
        for (var machine : sfn.listStateMachines(r -> { }).stateMachines()) {
            ArrayNode inputs = JSON.createArrayNode();
            try {
                for (var execution : sfn.listExecutions(r -> r.stateMachineArn(machine.stateMachineArn())).executions()) {
                    var described = sfn.describeExecution(r -> r.executionArn(execution.executionArn()));
                    ObjectNode entry = inputs.addObject();
                    entry.put("name", described.name());
                    entry.put("status", described.statusAsString());
                    entry.set("input", JSON.readTree(described.input()));
                }
            } catch (software.amazon.awssdk.services.sfn.model.SfnException e) {
                // Express machines list no executions, as in AWS.
            }
            if (!inputs.isEmpty()) {
                Files.writeString(dir.resolve(machine.name() + ".json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(inputs));
            }
        }
    }

    /** A table's items as DynamoDB JSON, sorted by key, as a Scan answers them. */
    private static String scan(DynamoDbClient dynamoDb, String table) throws Exception {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        if (dynamoDb.listTables().tableNames().contains(table)) {
            dynamoDb.scanPaginator(r -> r.tableName(table)).items().forEach(items::add);
        }
        ArrayNode array = JSON.createArrayNode();
        items.stream().map(MakeFixtures::dynamoJson).sorted(Comparator.comparing(JsonNode::toString)).forEach(array::add);
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(array);
    }

    static ObjectNode dynamoJson(Map<String, AttributeValue> item) {
        ObjectNode node = JSON.createObjectNode();
        new java.util.TreeMap<>(item).forEach((name, value) -> node.set(name, value(value)));
        return node;
    }

    private static ObjectNode value(AttributeValue value) {
        ObjectNode node = JSON.createObjectNode();
        switch (value.type()) {
            case S -> node.put("S", value.s());
            case N -> node.put("N", value.n());
            case BOOL -> node.put("BOOL", value.bool());
            case NUL -> node.put("NULL", true);
            case M -> node.set("M", dynamoJson(value.m()));
            case L -> {
                ArrayNode list = node.putArray("L");
                value.l().forEach(v -> list.add(value(v)));
            }
            case SS -> {
                ArrayNode list = node.putArray("SS");
                value.ss().forEach(list::add);
            }
            default -> throw new IllegalArgumentException("unexpected attribute type " + value.type());
        }
        return node;
    }

    /**
     * Every file under {@code dir}, one a line in path order: its SHA-256 in hex, two spaces and its path
     * under {@code dir} with {@code /} between names ({@code sha256sum -c data-dir.sha256} checks it from
     * inside {@code data-dir}).
     */
    static String listing(Path dir) throws Exception {
        StringBuilder listing = new StringBuilder();
        try (Stream<Path> paths = Files.walk(dir)) {
            List<Path> files = paths.filter(Files::isRegularFile).sorted(Comparator.comparing(p -> dir.relativize(p).toString())).toList();
            for (Path file : files) {
                byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
                listing.append(java.util.HexFormat.of().formatHex(digest)).append("  ")
                        .append(dir.relativize(file).toString().replace(java.io.File.separatorChar, '/')).append('\n');
            }
        }
        return listing.toString();
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
    }
}
