package dev.punctual.tests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.runtime.LocalClients;
import dev.punctual.testing.Await;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code punctual local --dynamodb-fault ... --lambda-fault ...} as a user runs it: it says at start
 * what it injects, then logs each injected fault on one line naming the error and the call site, and
 * never an item's key.
 */
class LocalFaultLogTest {

    private static final String TABLE = "fault-log";
    /**
     * How long the process may log nothing, once the first bucket is due, before the wait gives up: its
     * failing invocation is logged within a second of its minute, and a JVM beside a full suite on two cores
     * has paused for seconds, not tens of them.
     */
    private static final Duration PROCESS_STALL = Duration.ofSeconds(30);
    private static final String SECRET = "customer-4711-secret";

    @Test
    void everyInjectedFault_isLoggedWithItsErrorAndCallSite_andNoItemKey() throws Exception {
        // Every bucket invocation fails, so the first bucket due logs one; a fifth of DynamoDB calls fail, and
        // one batch of items due in forty different minutes makes over forty of the handler's (a read of each
        // minute's runner mark, and the index writes, 25 seconds' chunks to a request), so it logs some too
        // (all of them pass once in 7,500 runs). Items due in forty seconds of one minute would make only a
        // mark read and two index writes.
        try (PunctualProcess local = PunctualProcess.start(null, "--mode", "windowed",
                "--dynamodb-fault", "InternalServerError=0.2", "--lambda-fault", "Lambda.ServiceException=1");
             DynamoDbClient dynamoDb = LocalClients.dynamoDb(local.dynamoDbEndpoint())) {
            assertThat(local.output()).contains("Injected faults     DynamoDB InternalServerError=0.2, bucket function"
                    + " Lambda.ServiceException=1");
            FaultFixtures.createTable(dynamoDb, TABLE, true);
            // Far enough ahead that the items reach their buckets on a loaded machine, not the handler's own delete.
            long first = Instant.now().getEpochSecond() + 20;
            Map<String, Long> ttls = new LinkedHashMap<>();
            for (int i = 0; i < 40; i++) {
                ttls.put(SECRET + "-" + i, first + i * 60L);
            }
            FaultFixtures.batchWrite(dynamoDb, TABLE, ttls);

            // The process logs as it works (each fault injected is a line): the wait lasts while its log grows,
            // counting a stall from the first bucket's minute on, when its invocation is due to fail.
            Await.untilProgressingAfter(() -> "fault lines from the handler and the bucket state machine in:\n" + local.output(),
                    Instant.ofEpochSecond(first), PROCESS_STALL, Await.POLL, () -> local.output().length(),
                    () -> local.output().contains("Injected fault InternalServerError at handler.")
                            && local.output().contains("Injected fault Lambda.ServiceException at state-machine.Invoke"));

            assertThat(local.output().lines().filter(line -> line.contains("Injected fault ")))
                    .allSatisfy(line -> assertThat(line).matches(".*Injected fault [A-Za-z.]+ at [a-z-]+\\.[A-Za-z]+$"));
            assertThat(local.output()).as("no item key in the log").doesNotContain(SECRET);
        }
    }
}
