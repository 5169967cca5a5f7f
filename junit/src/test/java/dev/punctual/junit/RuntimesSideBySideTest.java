package dev.punctual.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Two test classes run side by side in one JVM (JUnit's parallel execution, classes concurrent), each
 * with a runtime of its own: each sees only its own table and its own time, while the other moves its
 * time by a different amount at the same moment.
 */
class RuntimesSideBySideTest {

    private static final Instant START = Instant.parse("2030-06-01T12:00:00Z");
    /** Both fixtures wait here with their tables written, so both runtimes are up at once. */
    private static final CyclicBarrier BOTH_RUNNING = new CyclicBarrier(2);
    private static final Map<String, Seen> SEEN = new ConcurrentHashMap<>();

    /** What one fixture class saw. */
    record Seen(List<String> tables, Instant now, List<ItemExpired> expired, boolean itemLeft) {
    }

    @Test
    void twoClassesInOneJvm_eachWithItsOwnRuntime_seeNeitherTheOthersTablesNorItsTime() {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(ThirtyMinutes.class), selectClass(TwoDays.class))
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
                .configurationParameter("junit.jupiter.execution.parallel.mode.classes.default", "concurrent")
                .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "2")
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        launcher.execute(request, summary);

        TestExecutionSummary result = summary.getSummary();
        assertThat(result.getFailures()).as("fixture failures: %s", describe(result.getFailures())).isEmpty();
        assertThat(result.getTestsSucceededCount()).isEqualTo(2);

        Seen thirty = SEEN.get("thirty");
        Seen days = SEEN.get("days");
        assertThat(thirty.tables()).contains("thirty-orders").doesNotContain("days-orders");
        assertThat(days.tables()).contains("days-orders").doesNotContain("thirty-orders");
        assertThat(thirty.now()).isEqualTo(START.plus(Duration.ofMinutes(30)));
        assertThat(days.now()).isEqualTo(START.plus(Duration.ofDays(2)));
        // The item due in an hour is gone only where time moved past it.
        assertThat(thirty.itemLeft()).isTrue();
        assertThat(thirty.expired()).isEmpty();
        assertThat(days.itemLeft()).isFalse();
        assertThat(days.expired()).extracting(ItemExpired::table).containsExactly("days-orders");
    }

    /** Each failure's test and its stack trace: a fixture's exception is the only account of what went wrong. */
    private static String describe(List<TestExecutionSummary.Failure> failures) {
        StringBuilder text = new StringBuilder();
        for (TestExecutionSummary.Failure failure : failures) {
            StringWriter trace = new StringWriter();
            failure.getException().printStackTrace(new PrintWriter(trace));
            text.append(System.lineSeparator()).append(failure.getTestIdentifier().getDisplayName()).append(": ")
                    .append(trace);
        }
        return text.toString();
    }

    /** Runs one fixture: a table, an item due in an hour, both runtimes up, then its own time moved by {@code by}. */
    static void run(String name, Duration by, DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time,
            ExpiredItems expired) throws Exception {
        String table = tables.create(name + "-orders", "id", "expiresAt");
        dynamoDb.putItem(b -> b.tableName(table).item(Map.of("id", AttributeValue.fromS("o-1"),
                "expiresAt", AttributeValue.fromN(Long.toString(time.now().plus(Duration.ofHours(1)).getEpochSecond())))));
        BOTH_RUNNING.await(60, TimeUnit.SECONDS);
        time.advance(by);
        boolean left = dynamoDb.getItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS("o-1")))
                .consistentRead(true)).hasItem();
        SEEN.put(name, new Seen(dynamoDb.listTables().tableNames(), time.now(), expired.all(), left));
        BOTH_RUNNING.await(60, TimeUnit.SECONDS);
    }

    static class ThirtyMinutes {
        @RegisterExtension
        static PunctualExtension punctual = new PunctualExtension().startingAt(START);

        @Test
        void moveThirtyMinutes(DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time, ExpiredItems expired)
                throws Exception {
            run("thirty", Duration.ofMinutes(30), dynamoDb, tables, time, expired);
        }
    }

    static class TwoDays {
        @RegisterExtension
        static PunctualExtension punctual = new PunctualExtension().startingAt(START);

        @Test
        void moveTwoDays(DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time, ExpiredItems expired)
                throws Exception {
            run("days", Duration.ofDays(2), dynamoDb, tables, time, expired);
        }
    }
}
