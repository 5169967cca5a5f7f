package dev.punctual.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.EventName;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.FakeExecutions;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.Reason;
import dev.punctual.expiry.StreamChange;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;

/**
 * Backfill on DynamoDB Local (in-process, see {@link EmbeddedDynamoDb}) with a fake Step Functions. The table holds 30 items:
 * 20 with valid TTLs, 5 with String TTLs, 3 without TTL, 2 in milliseconds. At 2026-01-01.
 */
class BackfillTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static EmbeddedDynamoDb local;
    private static DynamoDbClient dynamoDb;

    private final List<ScanRequest> scans = Collections.synchronizedList(new ArrayList<>());
    private final FakeExecutions executions = new FakeExecutions();
    private MutableClock clock;
    private String table;

    @TempDir
    Path temp;

    @BeforeAll
    static void startDynamoDbLocal() throws ReflectiveOperationException {
        local = new EmbeddedDynamoDb();
        dynamoDb = local.client();
    }

    @AfterAll
    static void stopDynamoDbLocal() {
        local.close();
    }

    private static final AtomicInteger TABLES = new AtomicInteger();

    @BeforeEach
    void createTable() {
        clock = new MutableClock(NOW);
        table = "backfill.items-" + TABLES.incrementAndGet();
        dynamoDb.createTable(r -> r.tableName(table)
                .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH), k -> k.attributeName("sk").keyType(KeyType.RANGE))
                .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                        a -> a.attributeName("sk").attributeType(ScalarAttributeType.N))
                .billingMode(BillingMode.PAY_PER_REQUEST));
        for (int i = 0; i < 30; i++) {
            Map<String, AttributeValue> item = new java.util.HashMap<>();
            item.put("pk", AttributeValue.fromS("item-" + i));
            item.put("sk", AttributeValue.fromN(Integer.toString(i)));
            item.put("body", AttributeValue.fromS("private " + i));
            if (i < 20) {
                item.put("ttl", AttributeValue.fromN(Long.toString(NOW.getEpochSecond() + 60 + i)));
            } else if (i < 25) {
                item.put("ttl", AttributeValue.fromS("soon"));
            } else if (i >= 28) {
                item.put("ttl", AttributeValue.fromN(Long.toString(NOW.toEpochMilli())));
            }
            dynamoDb.putItem(r -> r.tableName(table).item(item));
        }
    }

    /** The client, with every ScanRequest recorded so tests can check what was asked for. */
    private DynamoDbClient recordingClient() {
        return (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DynamoDbClient.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("scan") && args != null && args[0] instanceof ScanRequest request) {
                        scans.add(request);
                    }
                    try {
                        return method.invoke(dynamoDb, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private BackfillOptions options(int segments, double rate, int pageSize, Path progress) {
        return new BackfillOptions(table, "ttl", segments, rate, pageSize, progress);
    }

    @Test
    void run_schedulesEveryValidTtlOnceAndCountsTheRest() throws InterruptedException {
        Backfill backfill = new Backfill(recordingClient(), executions, clock, clock);

        BackfillSummary summary = backfill.run(options(3, 0, 4, null), BackfillListener.NONE);

        assertThat(summary).isEqualTo(new BackfillSummary(30, 20, 0,
                Map.of(Reason.TTL_NOT_A_NUMBER, 5L, Reason.NO_TTL, 3L, Reason.TTL_LOOKS_LIKE_MILLISECONDS, 2L), 0));
        assertThat(executions.executions()).hasSize(20);
        assertThat(scans).allSatisfy(scan -> {
            assertThat(scan.projectionExpression()).isEqualTo("#k0, #k1, #ttl");
            assertThat(scan.expressionAttributeNames()).isEqualTo(Map.of("#k0", "pk", "#k1", "sk", "#ttl", "ttl"));
            assertThat(scan.totalSegments()).isEqualTo(3);
        });
        assertThat(scans).extracting(ScanRequest::segment).contains(0, 1, 2);
    }

    @Test
    void run_startsExactlyWhatTheStreamHandlerWould_soNeitherStartsTwice() throws InterruptedException {
        ItemKey key = ItemKey.of(Map.of("pk", AttributeText.s("item-3"), "sk", AttributeText.n("3")));
        String ttl = Long.toString(NOW.getEpochSecond() + 63);
        var fromStream = new ExpiryRules("ttl", true).decide(new StreamChange(table, EventName.INSERT, key, false, null,
                true, AttributeText.n(ttl), "1", StreamChange.Writer.UNKNOWN, NOW), NOW).start().orElseThrow();
        executions.start(fromStream.name(), fromStream.input().toJson());

        BackfillSummary summary = new Backfill(dynamoDb, executions, clock, clock).run(options(2, 0, 0, null), BackfillListener.NONE);

        // Same name and same input: Step Functions answers the start with the running execution,
        // so the backfill counts it as scheduled and nothing new runs.
        assertThat(summary.scheduled()).isEqualTo(20);
        assertThat(executions.executions()).hasSize(20).containsKey(fromStream.name());
        assertThat(executions.input(fromStream.name())).isEqualTo(fromStream.input().toJson());
    }

    @Test
    void run_whenTheStreamStartedTheItemEarlier_findsItPending() throws InterruptedException {
        // Started long ago, the same TTL had more horizon hops to go: same name, other input.
        ItemKey key = ItemKey.of(Map.of("pk", AttributeText.s("item-3"), "sk", AttributeText.n("3")));
        String ttl = Long.toString(NOW.getEpochSecond() + 63);
        var earlier = new ExpiryRules("ttl", true).decide(StreamChange.existingItem(table, key, AttributeText.n(ttl)),
                NOW.minus(Duration.ofDays(400))).start().orElseThrow();
        executions.start(earlier.name(), earlier.input().toJson());

        BackfillSummary summary = new Backfill(dynamoDb, executions, clock, clock).run(options(2, 0, 0, null), BackfillListener.NONE);

        assertThat(summary.scheduled()).isEqualTo(19);
        assertThat(summary.alreadyPending()).isEqualTo(1);
        assertThat(executions.executions()).hasSize(20);
    }

    @Test
    void run_again_startsNothingNew() throws InterruptedException {
        Backfill backfill = new Backfill(dynamoDb, executions, clock, clock);
        backfill.run(options(2, 0, 0, null), BackfillListener.NONE);

        clock.sleep(Duration.ofSeconds(10));
        BackfillSummary again = backfill.run(options(4, 0, 0, null), BackfillListener.NONE);

        // Same names and inputs: Step Functions returns the running executions, nothing new starts.
        assertThat(again.scheduled()).isEqualTo(20);
        assertThat(executions.executions()).hasSize(20);
    }

    @Test
    void run_isRateLimited() throws InterruptedException {
        new Backfill(dynamoDb, executions, clock, clock).run(options(3, 5, 0, null), BackfillListener.NONE);

        // 30 items at 5/s with a burst of 5: the last 25 wait 5 s.
        assertThat(clock.slept()).isBetween(Duration.ofMillis(4_999), Duration.ofMillis(5_001));
    }

    @Test
    void run_afterAnInterruption_resumesFromTheProgressFile() throws Exception {
        Path progress = temp.resolve("progress.json");
        AtomicInteger pages = new AtomicInteger();
        BackfillListener stopAfterThreePages = new BackfillListener() {
            @Override
            public void progressed(BackfillSummary soFar) {
                if (pages.incrementAndGet() == 3) {
                    throw new IllegalStateException("interrupted");
                }
            }
        };
        Backfill backfill = new Backfill(dynamoDb, executions, clock, clock);

        assertThatThrownBy(() -> backfill.run(options(1, 0, 5, progress), stopAfterThreePages)).hasMessage("interrupted");
        assertThat(Files.readString(progress)).contains("\"done\" : false", "\"lastEvaluatedKey\"");
        List<BackfillSummary> seen = Collections.synchronizedList(new ArrayList<>());
        BackfillSummary resumed = backfill.run(options(1, 0, 5, progress), new BackfillListener() {
            @Override
            public void progressed(BackfillSummary soFar) {
                seen.add(soFar);
            }
        });

        assertThat(resumed.scanned()).isEqualTo(15);
        assertThat(executions.executions()).hasSize(20);
        assertThat(seen).last().isEqualTo(resumed);
        assertThat(Files.readString(progress)).contains("\"done\" : true").doesNotContain("lastEvaluatedKey");
        assertThatThrownBy(() -> backfill.run(options(2, 0, 5, progress), BackfillListener.NONE))
                .hasMessageContaining("use the same options");
    }

    @Test
    void run_whenAStartFails_countsItAndARunFromTheProgressFileRetriesIt() throws Exception {
        Path progress = temp.resolve("progress.json");
        // Item 15's TTL is NOW + 75 s, so its execution's name starts with 20260101T000115Z.
        executions.failStarts(name -> name.startsWith("20260101T000115Z"), new IllegalStateException("ThrottlingException"));
        Backfill backfill = new Backfill(dynamoDb, executions, clock, clock);

        BackfillSummary failing = backfill.run(options(1, 0, 10, progress), BackfillListener.NONE);

        assertThat(failing.failed()).isEqualTo(1);
        assertThat(failing.scheduled()).isEqualTo(19);
        assertThat(executions.executions()).hasSize(19);
        executions.failStarts(name -> false, null);
        BackfillSummary retry = backfill.run(options(1, 0, 10, progress), BackfillListener.NONE);
        assertThat(retry.failed()).isZero();
        assertThat(retry.scanned()).isPositive();
        assertThat(executions.executions()).hasSize(20);
        assertThat(Files.readString(progress)).contains("\"done\" : true");
    }
}
