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
    private static final String SECRET = "customer-4711-secret";

    @Test
    void everyInjectedFault_isLoggedWithItsErrorAndCallSite_andNoItemKey() throws Exception {
        try (PunctualProcess local = PunctualProcess.start(null, "--mode", "windowed",
                "--dynamodb-fault", "InternalServerError=0.3", "--lambda-fault", "Lambda.ServiceException=0.3");
             DynamoDbClient dynamoDb = LocalClients.dynamoDb(local.dynamoDbEndpoint())) {
            assertThat(local.output()).contains("Injected faults     DynamoDB InternalServerError=0.3, bucket function"
                    + " Lambda.ServiceException=0.3");
            FaultFixtures.createTable(dynamoDb, TABLE, true);
            long ttl = Instant.now().getEpochSecond() + 3;
            Map<String, Long> ttls = new LinkedHashMap<>();
            for (int i = 0; i < 20; i++) {
                ttls.put(SECRET + "-" + i, ttl);
            }
            FaultFixtures.batchWrite(dynamoDb, TABLE, ttls);

            Await.until(() -> "fault lines from the handler and the bucket state machine in:\n" + local.output(),
                    Duration.ofSeconds(60), () -> local.output().contains("Injected fault InternalServerError at handler.")
                            && local.output().contains("Injected fault Lambda.ServiceException at bucket-state-machine.Invoke"));

            assertThat(local.output().lines().filter(line -> line.contains("Injected fault ")))
                    .allSatisfy(line -> assertThat(line).matches(".*Injected fault [A-Za-z.]+ at [a-z-]+\\.[A-Za-z]+$"));
            assertThat(local.output()).as("no item key in the log").doesNotContain(SECRET);
        }
    }
}
