package dev.punctual.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.dynamodb.LocalDynamoDbClients;
import dev.punctual.local.dynamodb.StreamReads;
import dev.punctual.local.dynamodb.StreamRecordTrim;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.retention.RetentionSettings;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The runtime bounds DynamoDB Local's stream records by {@code --retain stream-records}, and never drops
 * one its stream mapping has not processed: a paused mapping's backlog outlives the bound, and every item
 * in it still expires at its second. What is kept is read back over HTTP, as the AWS CLI reads it.
 */
class StreamRecordBoundsTest {

    private static final Instant START = Instant.parse("2031-03-04T05:06:07.250Z");
    private static final String TABLE = "holds";
    private static final int ITEMS = 60;
    private static final int KEPT = 20;

    private LocalRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    @ParameterizedTest
    @EnumSource(ExpiryMode.class)
    void aPausedMappingsBacklog_outlivesTheBound_andTheRestIsTrimmedOnceProcessed(ExpiryMode mode) {
        runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode)
                .withTimer(ManualTimer.startingAt(START))
                .withRetention(RetentionSettings.defaults().with(Retained.STREAM_RECORDS,
                        Retention.of(KEPT, Duration.ofDays(1)))));
        // Paused before the table exists, so not one of its records is read until it is enabled again.
        runtime.streamPoller().setEnabled(false);
        String stream = createTable();
        SkippedTime time = SkippedTime.of(runtime);
        runtime.observations().deletions().track(TABLE);
        long ttl = START.getEpochSecond() + 300;
        for (int i = 0; i < ITEMS; i++) {
            String id = "hold-" + i;
            runtime.dynamoDb().putItem(b -> b.tableName(TABLE).item(Map.of("id", AttributeValue.fromS(id),
                    "expiresAt", AttributeValue.fromN(Long.toString(ttl)))));
        }

        time.advance(StreamRecordTrim.PERIOD.plusSeconds(1));
        assertThat(records(stream)).as("unprocessed, so kept past the bound of %d", KEPT).hasSize(ITEMS);

        runtime.streamPoller().setEnabled(true);
        time.advanceTo(Instant.ofEpochSecond(ttl + 1));
        for (int i = 0; i < ITEMS; i++) {
            Optional<Instant> deleted = runtime.observations().deletions().deletedAt(TABLE,
                    Map.of("id", AttributeValue.fromS("hold-" + i)));
            assertThat(deleted).as("hold-%d deleted", i).isPresent();
            assertThat(deleted.get()).as("hold-%d not early", i).isAfterOrEqualTo(Instant.ofEpochSecond(ttl));
        }

        time.advance(StreamRecordTrim.PERIOD.plusSeconds(1));
        List<Record> kept = records(stream);
        assertThat(kept).as("processed, so trimmed to the newest %d", KEPT).hasSize(KEPT);
        assertThat(kept).allSatisfy(r -> assertThat(r.eventNameAsString()).isEqualTo("REMOVE"));
    }

    private String createTable() {
        String stream = runtime.dynamoDb().createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)))
                .tableDescription().latestStreamArn();
        runtime.dynamoDb().updateTimeToLive(b -> b.tableName(TABLE)
                .timeToLiveSpecification(t -> t.enabled(true).attributeName("expiresAt")));
        runtime.streamPoller().discoverTables();
        return stream;
    }

    /** Every record of the table's stream, from TRIM_HORIZON, over HTTP. */
    private List<Record> records(String stream) {
        try (DynamoDbStreamsClient streams = LocalDynamoDbClients.streams(runtime.endpoints().dynamoDb())) {
            return StreamReads.allRecords(streams, stream);
        }
    }
}
