package dev.punctual.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.runtime.LocalRuntime;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * The extension's options as a user's test class sees them, each run through the JUnit launcher like a
 * build runs a class: one runtime shared by every class of a run ({@code sharedPerJvm}), the wall clock
 * ({@code realTime}) and the asynchronous client.
 */
class ExtensionOptionsTest {

    private static final Instant START = Instant.parse("2031-03-01T09:00:00Z");
    private static final Map<String, Seen> SEEN = new ConcurrentHashMap<>();

    /** What one fixture saw: the runtime's DynamoDB endpoint, its tables at the end, its time before and after. */
    record Seen(URI endpoint, List<String> tables, Instant before, Instant after) {
    }

    @Test
    void sharedPerJvm_classesOfOneRunShareOneRuntime_itsTablesAndItsTime_andItClosesWhenTheRunEnds() {
        run(selectClass(FirstSharer.class), selectClass(SecondSharer.class));

        Seen first = SEEN.get("first");
        Seen second = SEEN.get("second");
        assertThat(second.endpoint()).as("one runtime").isEqualTo(first.endpoint());
        // The classes run one after the other, in whichever order: the later one sees both tables, and starts
        // at the instant the earlier one left the shared time at.
        Seen earlier = first.before().isBefore(second.before()) ? first : second;
        Seen later = earlier == first ? second : first;
        assertThat(later.tables()).contains("first-orders", "second-orders");
        assertThat(later.before()).isEqualTo(earlier.after());
        assertThat(earlier.before()).isEqualTo(START);
        try (DynamoDbClient after = LocalDynamoDbClients.dynamoDb(first.endpoint())) {
            assertThatThrownBy(after::listTables).as("the shared runtime is closed once the run has ended")
                    .isInstanceOf(SdkClientException.class);
        }
    }

    @Test
    void realTime_followsTheWallClock_andTheItemGoesAtItsTtl() {
        run(selectClass(OnTheWallClock.class));

        Seen seen = SEEN.get("real");
        assertThat(Duration.between(seen.before(), seen.after())).as("advance(3 s) on the wall clock")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void asyncClient_writesAndReadsTheRuntimesTables() {
        run(selectClass(WithTheAsyncClient.class));

        assertThat(SEEN.get("async").tables()).contains("async-orders");
    }

    /** Runs the fixture classes through the launcher and fails with their failures, if any. */
    private static void run(DiscoverySelector... classes) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(classes).build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, summary);
        TestExecutionSummary result = summary.getSummary();
        assertThat(result.getFailures()).as("fixture failures").extracting(failure -> failure.getException().toString())
                .isEmpty();
        assertThat(result.getTestsSucceededCount()).isEqualTo(classes.length);
    }

    private static Map<String, AttributeValue> item(String id, Instant ttl) {
        return Map.of("id", AttributeValue.fromS(id), "expiresAt", AttributeValue.fromN(Long.toString(ttl.getEpochSecond())));
    }

    /** Writes an item due in an hour to a table of its own and moves the shared time by ten minutes. */
    static void share(String name, LocalRuntime runtime, DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time) {
        String table = tables.create(name + "-orders", "id", "expiresAt");
        dynamoDb.putItem(b -> b.tableName(table).item(item("o-1", time.now().plus(Duration.ofHours(1)))));
        Instant before = time.now();
        time.advance(Duration.ofMinutes(10));
        SEEN.put(name, new Seen(runtime.endpoints().dynamoDb(), dynamoDb.listTables().tableNames(), before, time.now()));
    }

    static class FirstSharer {
        @RegisterExtension
        static PunctualExtension punctual = new PunctualExtension().startingAt(START).sharedPerJvm();

        @Test
        void share(LocalRuntime runtime, DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time) {
            ExtensionOptionsTest.share("first", runtime, dynamoDb, tables, time);
        }
    }

    static class SecondSharer {
        @RegisterExtension
        static PunctualExtension punctual = new PunctualExtension().startingAt(START).sharedPerJvm();

        @Test
        void share(LocalRuntime runtime, DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time) {
            ExtensionOptionsTest.share("second", runtime, dynamoDb, tables, time);
        }
    }

    static class OnTheWallClock {
        @RegisterExtension
        static PunctualExtension punctual = new PunctualExtension().realTime();

        @Test
        void expiresOnTheWallClock(LocalRuntime runtime, DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time,
                ExpiredItems expired) throws InterruptedException {
            assertThat(time.isControlled()).isFalse();
            assertThat(Duration.between(time.now(), Instant.now()).abs()).isLessThan(Duration.ofSeconds(1));
            String table = tables.create("real-orders", "id", "expiresAt");
            Instant ttl = Instant.now().plusSeconds(2);
            dynamoDb.putItem(b -> b.tableName(table).item(item("o-1", ttl)));
            Instant before = Instant.now();
            time.advance(Duration.ofSeconds(3));
            Instant after = Instant.now();
            // On the wall clock the extension does not wait for the runtime: the test waits for the state.
            Instant giveUp = after.plusSeconds(30);
            while (expired.of(table).isEmpty() && Instant.now().isBefore(giveUp)) {
                Thread.sleep(20);
            }
            assertThat(expired.of(table)).singleElement().satisfies(event -> {
                assertThat(event.byPunctual()).isTrue();
                assertThat(event.deletedAt()).isAfterOrEqualTo(Instant.ofEpochSecond(ttl.getEpochSecond()));
                assertThat(event.lag().isNegative()).as("lag %s", event.lag()).isFalse();
            });
            assertThat(dynamoDb.getItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS("o-1")))
                    .consistentRead(true)).hasItem()).isFalse();
            SEEN.put("real", new Seen(runtime.endpoints().dynamoDb(), List.of(table), before, after));
        }
    }

    static class WithTheAsyncClient {
        @RegisterExtension
        static PunctualExtension punctual = new PunctualExtension().startingAt(START);

        @Test
        void expires(LocalRuntime runtime, DynamoDbAsyncClient dynamoDb, ExpiryTables tables, PunctualTime time) {
            String table = tables.create("async-orders", "id", "expiresAt");
            dynamoDb.putItem(PutItemRequest.builder().tableName(table).item(item("o-1", START.plusSeconds(90))).build()).join();
            GetItemRequest read = GetItemRequest.builder().tableName(table).key(Map.of("id", AttributeValue.fromS("o-1")))
                    .consistentRead(true).build();
            time.advance(Duration.ofSeconds(89));
            assertThat(dynamoDb.getItem(read).join().hasItem()).as("a second before its TTL").isTrue();
            time.advance(Duration.ofSeconds(1));
            assertThat(dynamoDb.getItem(read).join().hasItem()).as("at its TTL").isFalse();
            SEEN.put("async", new Seen(runtime.endpoints().dynamoDb(), dynamoDb.listTables().join().tableNames(), START, time.now()));
        }
    }
}
