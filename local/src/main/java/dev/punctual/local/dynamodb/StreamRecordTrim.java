package dev.punctual.local.dynamodb;

import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteException;
import com.almworks.sqlite4java.SQLiteJob;
import com.almworks.sqlite4java.SQLiteQueue;
import com.almworks.sqlite4java.SQLiteStatement;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.time.Chore;
import dev.punctual.local.time.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Forgets DynamoDB Local's oldest stream records, by the {@code stream-records} bounds, so that a
 * runtime left running holds what its streams still owe, not every write since it started.
 *
 * <p>DynamoDB Local keeps every stream record of every table in one SQLite table, {@code us}, and drops
 * those older than 24 hours only when it opens the database. Left running, it never does: at 150 writes
 * a second (an insert and a remove record each) the table grew by 12 MB a minute, in native memory
 * without a data directory. DynamoDB Streams keeps a record 24 hours and then trims it, reader or not;
 * this trims a record once it is past either bound, the count of the newest kept or the age, and in one
 * respect keeps more than AWS: a record that a Punctual mapping has not processed yet stays, however old
 * (a paused mapping, a stream backlog), so trimming never loses an expiration. It keeps the last record
 * a reader processed too, so a reader resuming after it still finds its position, and the newest record
 * of all: DynamoDB Local numbers records on from the largest sequence number in the table when it opens
 * the database, so with the newest gone a restart would hand out numbers again, and a reader already past
 * them would never see those records.
 *
 * <p>Records go in sequence-number ranges of {@value #CHUNK} (the table's rowid, so each range is a
 * seek), one SQLite job each: requests queued behind a range run before the next one starts.
 * DynamoDB Local stamps a record with the wall clock, rounded down to the minute, so the age is read
 * against the wall clock too (the runtime passes it), a minute early at most.
 */
public final class StreamRecordTrim {

    /** What a reader of the streams still needs. */
    @FunctionalInterface
    public interface Readers {
        /**
         * The first sequence number of {@code shardId} in {@code streamArn} to keep for a reader, or
         * {@link Long#MAX_VALUE} when no reader needs any of that shard.
         */
        long keepFrom(String streamArn, String shardId);
    }

    /** How often the runtime trims: a minute's records at a time, a few milliseconds each range. */
    public static final Duration PERIOD = Duration.ofMinutes(1);

    private static final System.Logger LOG = System.getLogger(StreamRecordTrim.class.getName());
    /** Sequence numbers per delete: a few thousand rows, a few milliseconds of DynamoDB Local's thread. */
    static final long CHUNK = 2_000;

    private final SQLiteQueue database;
    private final Retention bounds;
    private final Clock clock;
    private final Readers readers;
    private final AtomicLong forgotten = new AtomicLong();

    /**
     * @param server  the DynamoDB Local whose stream records to bound
     * @param bounds  how many records to keep at most, and for how long
     * @param clock   the clock DynamoDB Local stamps records by, for the age
     * @param readers what the runtime's stream readers have not processed yet
     */
    public StreamRecordTrim(DynamoDbLocalServer server, Retention bounds, Clock clock, Readers readers) {
        this.database = server.inProcess().database();
        this.bounds = bounds;
        this.clock = clock;
        this.readers = readers;
    }

    /**
     * Trims every {@code period} of {@code timer}, on {@code executor}, the first time one period from
     * now (so a restarted runtime's readers have found their tables first); until closed.
     */
    public Chore every(Duration period, Timer timer, Executor executor) {
        return Chore.start("Trimming DynamoDB Local's stream records", timer, executor, period, period, () -> {
            trim();
            return period;
        });
    }

    /**
     * Forgets every record past a bound that no reader needs, now.
     *
     * @return how many records were forgotten
     */
    public long trim() {
        Plan plan = run(new SQLiteJob<Plan>() {
            @Override
            protected Plan job(SQLiteConnection connection) throws SQLiteException {
                return plan(connection);
            }
        });
        if (plan == null) {
            return 0;
        }
        long deleted = 0;
        for (long from = plan.oldest(); from < plan.below(); from += CHUNK) {
            long start = from;
            long end = Math.min(plan.below(), from + CHUNK);
            deleted += run(new SQLiteJob<Integer>() {
                @Override
                protected Integer job(SQLiteConnection connection) throws SQLiteException {
                    return deleteRange(connection, start, end, plan.kept());
                }
            });
        }
        forgotten.addAndGet(deleted);
        if (deleted > 0) {
            LOG.log(System.Logger.Level.DEBUG, "forgot {0} stream records past the stream-records bounds ({1})",
                    deleted, bounds);
        }
        return deleted;
    }

    /** Runs {@code job} on DynamoDB Local's connection and returns its result, or throws its failure. */
    private <T> T run(SQLiteJob<T> job) {
        T result = database.execute(job).complete();
        if (job.getError() != null) {
            throw new IllegalStateException("DynamoDB Local's database refused a stream-record trim: " + job.getError(),
                    job.getError());
        }
        if (job.isCancelled()) {
            throw new IllegalStateException("DynamoDB Local's database closed during a stream-record trim");
        }
        return result;
    }

    /** How many records this has forgotten since it was made. */
    public long forgotten() {
        return forgotten.get();
    }

    /**
     * What to delete: every record below {@code below} but the kept ranges of shards a reader needs.
     * {@code null} when nothing is past a bound.
     */
    private record Plan(long oldest, long below, List<Kept> kept) {
    }

    /** A shard a reader needs from {@code from} on. */
    private record Kept(String shardId, long from) {
    }

    private Plan plan(SQLiteConnection connection) throws SQLiteException {
        Long oldest = firstLong(connection, "SELECT MIN(SequenceNumber) FROM us");
        if (oldest == null) {
            return null;
        }
        long below = Math.max(countCut(connection), ageCut(connection));
        if (below <= oldest) {
            return null;
        }
        List<Kept> kept = new ArrayList<>();
        SQLiteStatement shards = connection.prepare("SELECT StreamID, ShardID FROM ss", false);
        try {
            while (shards.step()) {
                String shardId = shards.columnString(1);
                long from = readers.keepFrom(shards.columnString(0), shardId);
                if (from < below) {
                    kept.add(new Kept(shardId, from));
                }
            }
        } finally {
            shards.dispose();
        }
        return new Plan(oldest, below, kept);
    }

    /** The oldest of the newest {@code count} records: every one before it is past the count bound. */
    private long countCut(SQLiteConnection connection) throws SQLiteException {
        SQLiteStatement newest = connection.prepare(
                "SELECT SequenceNumber FROM us ORDER BY SequenceNumber DESC LIMIT 1 OFFSET ?", false);
        try {
            newest.bind(1, bounds.count() - 1);
            return newest.step() ? newest.columnLong(0) : Long.MIN_VALUE;
        } finally {
            newest.dispose();
        }
    }

    /**
     * The oldest record young enough to keep: every one before it is past the age bound. SQLite walks
     * the records in sequence order from the oldest, so this reads what is about to go, and one more.
     */
    private long ageCut(SQLiteConnection connection) throws SQLiteException {
        SQLiteStatement young = connection.prepare(
                "SELECT SequenceNumber FROM us WHERE CreationDateTime >= ? ORDER BY SequenceNumber LIMIT 1", false);
        try {
            young.bind(1, clock.millis() - bounds.age().toMillis());
            if (young.step()) {
                return young.columnLong(0);
            }
        } finally {
            young.dispose();
        }
        // Every record is past the age; the newest stays all the same (see the class comment).
        Long newest = firstLong(connection, "SELECT MAX(SequenceNumber) FROM us");
        return newest == null ? Long.MIN_VALUE : newest;
    }

    private static int deleteRange(SQLiteConnection connection, long from, long below, List<Kept> kept)
            throws SQLiteException {
        StringBuilder sql = new StringBuilder("DELETE FROM us WHERE SequenceNumber >= ? AND SequenceNumber < ?");
        for (int i = 0; i < kept.size(); i++) {
            sql.append(" AND NOT (ShardID = ? AND SequenceNumber >= ?)");
        }
        SQLiteStatement delete = connection.prepare(sql.toString(), false);
        try {
            int parameter = 1;
            delete.bind(parameter++, from);
            delete.bind(parameter++, below);
            for (Kept shard : kept) {
                delete.bind(parameter++, shard.shardId());
                delete.bind(parameter++, shard.from());
            }
            delete.step();
        } finally {
            delete.dispose();
        }
        return connection.getChanges();
    }

    private static Long firstLong(SQLiteConnection connection, String sql) throws SQLiteException {
        SQLiteStatement statement = connection.prepare(sql, false);
        try {
            return statement.step() && !statement.columnNull(0) ? statement.columnLong(0) : null;
        } finally {
            statement.dispose();
        }
    }
}
