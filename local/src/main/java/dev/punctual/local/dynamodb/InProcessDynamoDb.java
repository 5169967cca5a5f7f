package dev.punctual.local.dynamodb;

import com.amazonaws.services.dynamodbv2.local.server.LocalDynamoDBRequestHandler;
import com.amazonaws.services.dynamodbv2.local.shared.access.AmazonDynamoDBLocal;
import com.amazonaws.services.dynamodbv2.local.shared.access.LocalDBClient;
import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteException;
import com.almworks.sqlite4java.SQLiteJob;
import com.almworks.sqlite4java.SQLiteQueue;
import com.amazonaws.services.dynamodbv2.local.shared.access.sqlite.SQLiteDBAccess;
import dev.punctual.local.account.LocalAccount;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.StreamRecord;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * SDK v2 clients that call the database {@link DynamoDbLocalServer} serves directly, in this
 * process, with no HTTP in between: the same tables, items and streams the HTTP endpoint shows.
 *
 * <p>They are what {@code DynamoDBEmbedded.create().dynamoDbClient()} gives, over the server's
 * database instead of a new one: DynamoDB Local's own request processing (validation, condition
 * expressions, stream records) and its own mapping of errors onto the SDK's exceptions, e.g.
 * {@code ConditionalCheckFailedException}. What they skip is the wire: JSON, SigV4 and a socket per
 * call, which dominated the CPU profile on a 2-core machine. The local runtime uses them
 * for its own traffic (the state machine's deletes, the stream poller); applications and the AWS
 * CLI keep using the HTTP endpoint.
 *
 * <p>DynamoDB Local 2.6.1 offers no public way to share its server's database, so this reaches two
 * private members by reflection: {@code LocalDynamoDBRequestHandler.getHandler} (the database every
 * access key shares, as {@code -sharedDb} makes it) and the package-private constructor of
 * {@code DDBExceptionMappingInvocationHandler}, which {@code DynamoDBEmbedded} itself uses. The
 * version is pinned in the parent POM and {@code InProcessDynamoDbTest} fails if either moves.
 *
 * <p>Never close these clients: closing one shuts the shared database down. The server owns it.
 */
public final class InProcessDynamoDb {

    /**
     * Indexes DynamoDB Local's stream-record table {@code us} lacks; see {@link #indexStreamRecords}.
     * Neither names {@code SequenceNumber}: it is the table's rowid, which SQLite appends to every
     * index entry anyway, and SQLite 3.8.7 (the build DynamoDB Local ships) applies a range on the rowid
     * only when the index leaves it implicit.
     */
    static final List<String> STREAM_RECORD_INDEXES = List.of(
            "CREATE INDEX IF NOT EXISTS \"us*punctual-stream\" ON us (StreamID)",
            "CREATE INDEX IF NOT EXISTS \"us*punctual-shard\" ON us (ShardID)");
    /**
     * The index an earlier version of this runtime added. Naming {@code SequenceNumber} made SQLite walk
     * a stream's records from its first one on every GetRecords; a database on disk may still have it.
     */
    static final String SUPERSEDED_STREAM_RECORD_INDEX = "DROP INDEX IF EXISTS \"us*punctual-stream-sequence\"";
    /** Epoch seconds of the year 5138: any creation time past it is milliseconds read as seconds. */
    private static final long MILLIS_READ_AS_SECONDS = 100_000_000_000L;
    private static final String MAPPING_HANDLER =
            "com.amazonaws.services.dynamodbv2.local.embedded.DDBExceptionMappingInvocationHandler";

    private final SQLiteQueue database;
    private final DynamoDbClient dynamoDb;
    private final DynamoDbStreamsClient streams;

    private InProcessDynamoDb(SQLiteQueue database, InvocationHandler handler) {
        this.database = database;
        this.dynamoDb = proxy(DynamoDbClient.class, handler);
        this.streams = proxy(DynamoDbStreamsClient.class, correctingCreationTimes(proxy(DynamoDbStreamsClient.class, handler)));
    }

    /**
     * DynamoDB Local's in-process streams client reads a record's creation time, stored in epoch
     * milliseconds, as epoch seconds (year 58861 instead of 2026); its HTTP endpoint gets it right.
     * This puts GetRecords' {@code ApproximateCreationDateTime} back to what the HTTP endpoint answers
     * (DynamoDB Local stores it rounded down to the minute). The handler compares it with the TTL to
     * tell Punctual's own delete from an application's, so the error is not cosmetic: uncorrected, an
     * application's early delete looked like Punctual's and its execution was not stopped.
     */
    private static InvocationHandler correctingCreationTimes(DynamoDbStreamsClient target) {
        return (proxy, method, args) -> {
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
            }
            if (result instanceof GetRecordsResponse response) {
                return response.toBuilder().records(response.records().stream()
                        .map(InProcessDynamoDb::correctCreationTime).toList()).build();
            }
            return result;
        };
    }

    private static Record correctCreationTime(Record record) {
        StreamRecord stream = record.dynamodb();
        Instant stored = stream == null ? null : stream.approximateCreationDateTime();
        if (stored == null || stored.getEpochSecond() < MILLIS_READ_AS_SECONDS) {
            return record;
        }
        Instant actual = Instant.ofEpochMilli(stored.getEpochSecond()).truncatedTo(ChronoUnit.SECONDS);
        return record.toBuilder().dynamodb(stream.toBuilder().approximateCreationDateTime(actual).build()).build();
    }

    /** Clients over the database behind {@code requests}, the server's request handler. */
    static InProcessDynamoDb over(LocalDynamoDBRequestHandler requests) {
        try {
            Method credentials = LocalDynamoDBRequestHandler.class
                    .getDeclaredMethod("getCredentialsString", String.class, String.class);
            credentials.setAccessible(true);
            Method database = LocalDynamoDBRequestHandler.class.getDeclaredMethod("getHandler", String.class);
            database.setAccessible(true);
            // With a shared database every access key and region lead to the same one.
            Object key = credentials.invoke(requests, LocalAccount.ACCESS_KEY_ID, LocalAccount.REGION);
            AmazonDynamoDBLocal shared = (AmazonDynamoDBLocal) database.invoke(requests, key);
            SQLiteQueue queue = queue((LocalDBClient) shared);
            indexStreamRecords(queue);
            Constructor<?> mapping = Class.forName(MAPPING_HANDLER).getDeclaredConstructor(LocalDBClient.class);
            mapping.setAccessible(true);
            return new InProcessDynamoDb(queue,
                    (InvocationHandler) mapping.newInstance((LocalDBClient) shared));
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("DynamoDB Local's internals are not what this runtime was built"
                    + " against (com.amazonaws:DynamoDBLocal 2.6.1): " + e, e);
        }
    }

    /**
     * Adds the indexes DynamoDB Local's stream-record table lacks. DynamoDB Local keeps every stream
     * record in one SQLite table, {@code us}, whose only index is its rowid, the sequence number (it drops
     * records older than 24 hours only when it opens the database; {@link StreamRecordTrim} bounds them
     * while the runtime runs). Two of its queries then grow with every record kept, of every table:
     * <ul>
     *   <li>every write to a table with a stream, and every GetRecords, describes the stream with
     *       {@code SELECT MIN(SequenceNumber) FROM us WHERE StreamID = ?}: SQLite walks the records in
     *       sequence order until it meets the stream's first one, so a newer stream's writes pass over
     *       all older streams' records. In a one-off run with 5,000 items per table on 2 cores,
     *       conditional deletes on a second table fell from about 470/s to about 40/s; with an index on
     *       {@code StreamID} they held at 860-1,100/s ({@link dev.punctual.local.bench.DeleteFloorBenchmark} measures that rate);
     *   <li>GetRecords ({@code ... WHERE StreamID = ? AND ShardID = ? AND SequenceNumber >= ? ...
     *       ORDER BY SequenceNumber LIMIT ?}) must jump to the iterator's position. On an index that
     *       names {@code SequenceNumber} SQLite 3.8.7 uses only the equality and reads the shard from its
     *       first record, which stalled a 60,000-item bench (a one-off timing on 150,000 records: 180 ms
     *       a call). On {@code (ShardID)} it seeks to {@code rowid >= ?} (2 ms in the same timing).
     * </ul>
     * The indexes change no result, only how SQLite finds it; {@code InProcessDynamoDbTest} checks the
     * plans SQLite chooses. {@code IF [NOT] EXISTS} keeps this idempotent for a database on disk.
     */
    private static void indexStreamRecords(SQLiteQueue queue) {
        queue.execute(new SQLiteJob<Void>() {
            @Override
            protected Void job(SQLiteConnection connection) throws SQLiteException {
                connection.exec(SUPERSEDED_STREAM_RECORD_INDEX);
                for (String index : STREAM_RECORD_INDEXES) {
                    connection.exec(index);
                }
                return null;
            }
        }).complete();
    }

    /** The queue of DynamoDB Local's one SQLite connection, on which every request of its runs in turn. */
    private static SQLiteQueue queue(LocalDBClient client) throws ReflectiveOperationException {
        Field access = LocalDBClient.class.getDeclaredField("dbAccess");
        access.setAccessible(true);
        Object dbAccess = access.get(client);
        Field queueField = SQLiteDBAccess.class.getDeclaredField("queue");
        queueField.setAccessible(true);
        return (SQLiteQueue) queueField.get(dbAccess);
    }

    /**
     * DynamoDB Local's SQLite database, for what its API offers no way to do ({@link StreamRecordTrim}).
     * A job run here waits its turn behind the requests queued before it, and they behind it.
     */
    SQLiteQueue database() {
        return database;
    }

    /** DynamoDB on the served database. */
    public DynamoDbClient dynamoDb() {
        return dynamoDb;
    }

    /** DynamoDB Streams on the served database. */
    public DynamoDbStreamsClient streams() {
        return streams;
    }

    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
