package dev.punctual.local.modes;

import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.sfn.SfnClient;

/**
 * Pending expirations as the console lists them (sorted by expiry, key and TTL, never item images),
 * read the way a mode keeps them: per item, the running executions; windowed, the schedule index.
 */
public interface PendingWork extends AutoCloseable {

    /** What a mode may read its pending work from. */
    record Sources(StepFunctionsEngine engine, Clock clock, SfnClient sfn, DynamoDbClient dynamoDb) {
    }

    /**
     * One pending expiration.
     *
     * @param holderField the field naming what holds the item: {@code execution} or {@code bucket}
     * @param holder that execution's or bucket's name
     * @param executionArn the execution that will reach it; {@code null} while none does yet
     */
    record Row(Instant expireAt, String table, String key, String ttl, String holderField, String holder,
            String executionArn) {
    }

    /**
     * One page.
     *
     * @param total pending expirations of the table asked for, of which the rows are a page
     * @param next where the next page starts, {@code null} after the last
     */
    record Page(List<Row> rows, int total, String next) {
    }

    /** Pending expirations per table. */
    Map<String, Integer> countsByTable();

    /** Pending expirations due before {@code instant}: the missed ones, when it is a while ago. */
    int countDueBefore(Instant instant);

    /**
     * Up to {@code limit} pending expirations of {@code table} ({@code null}: every table), after
     * {@code after} (a {@link Page#next()} this reader returned; {@code null}: from the first).
     *
     * @throws IllegalArgumentException when {@code after} is not a position this reader returned
     */
    Page page(String table, String after, int limit);

    @Override
    void close();
}
