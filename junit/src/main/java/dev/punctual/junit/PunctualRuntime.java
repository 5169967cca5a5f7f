package dev.punctual.junit;

import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.retention.RetentionSettings;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.runtime.SkippedTime;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import java.time.Instant;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One runtime started for a test class (or for the JVM) and what its tests are handed; closed with the
 * extension context that holds it.
 */
final class PunctualRuntime implements AutoCloseable {

    final LocalRuntime runtime;
    final PunctualTime time;
    final DynamoDbClient dynamoDb;
    final DynamoDbAsyncClient dynamoDbAsync;
    final ExpiryTables tables;
    final ExpiredItems expired;

    private PunctualRuntime(LocalRuntime runtime, PunctualTime time) {
        this.runtime = runtime;
        this.time = time;
        this.dynamoDb = LocalDynamoDbClients.dynamoDb(runtime.endpoints().dynamoDb());
        this.dynamoDbAsync = DynamoDbAsyncClient.builder().endpointOverride(runtime.endpoints().dynamoDb())
                .region(LocalAccount.region()).credentialsProvider(LocalAccount.CREDENTIALS)
                .httpClientBuilder(NettyNioAsyncHttpClient.builder()).build();
        this.tables = new ExpiryTables(runtime);
        this.expired = new ExpiredItems(runtime.observations().events());
    }

    /** A runtime in {@code mode} on free loopback ports; on a manual timer from {@code start}, or real time when null. */
    static PunctualRuntime start(ExpiryMode mode, Instant start) {
        // The runtime keeps its events an hour by default; a test that moves time a year still reads them all.
        LocalRuntime.Options options = LocalRuntime.Options.onFreePorts().withMode(mode)
                .withRetention(RetentionSettings.defaults().with(Retained.EVENTS, Retention.EVERYTHING));
        if (start == null) {
            return new PunctualRuntime(LocalRuntime.start(options), PunctualTime.real());
        }
        LocalRuntime runtime = LocalRuntime.start(options.withTimer(ManualTimer.startingAt(start)));
        return new PunctualRuntime(runtime, PunctualTime.controlled(SkippedTime.of(runtime)));
    }

    @Override
    public void close() {
        try (runtime; dynamoDb; dynamoDbAsync) {
            // Clients first, then the runtime they talk to.
        }
    }
}
