package dev.punctual.local.dynamodb;

import com.amazonaws.services.dynamodbv2.local.server.LocalDynamoDBRequestHandler;
import com.amazonaws.services.dynamodbv2.local.shared.access.LocalDBAccess;
import com.amazonaws.services.dynamodbv2.local.shared.access.LocalDBClient;
import com.amazonaws.services.dynamodbv2.local.shared.jobs.JobsRegister;
import com.amazonaws.services.dynamodbv2.local.shared.jobs.TimeToLiveDeletionJobScheduler;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * DynamoDB Local's shared database opened without its emulation of native TTL. Punctual is the TTL
 * here: DynamoDB Local's job rescans every table with TTL on and deletes expired items minutes before
 * AWS's native TTL would (AWS: within days), competing with Punctual's deletes for its single SQLite
 * thread, and the trial would count those as {@code backstop first}.
 *
 * <p>Cancelling the job once the database is open is too late: the job's scheduler starts with the
 * database and its first pass at once submits a deletion job for each table with TTL on (a data
 * directory from an earlier run holds some), which pages through its table deleting expired items and
 * which no cancel reaches. So the database is opened here instead, as DynamoDB Local's request handler
 * opens it on first use, with a job pool that never runs the TTL scheduler; its other jobs (index
 * creation, shard rollover) run as they would.
 *
 * <p>DynamoDB Local 2.6.1 offers no public way to do this: it reaches the handler's private
 * {@code dbRequestHandlers} and {@code getDBAccess}, and {@code InProcessDynamoDbTest} fails if either moves.
 */
final class WithoutNativeTtl {

    /** The database name DynamoDB Local uses with {@code -sharedDb}: the file {@code shared-local-instance.db}. */
    static final String SHARED_DATABASE = "shared-local-instance";
    /** Threads in the job pool, as DynamoDB Local's request handler sizes it. */
    private static final int JOB_THREADS = 10;

    private WithoutNativeTtl() {
    }

    /**
     * Opens {@code requests}' shared database (in {@code directory}, or in memory for {@code null}) before
     * anything else does, with no TTL job.
     */
    static void open(LocalDynamoDBRequestHandler requests, Path directory) {
        try {
            Method open = LocalDynamoDBRequestHandler.class.getDeclaredMethod("getDBAccess", String.class, String.class, boolean.class);
            open.setAccessible(true);
            LocalDBAccess database = (LocalDBAccess) open.invoke(null, SHARED_DATABASE,
                    directory == null ? null : directory.toString(), directory == null);
            Field handlers = LocalDynamoDBRequestHandler.class.getDeclaredField("dbRequestHandlers");
            handlers.setAccessible(true);
            @SuppressWarnings("unchecked")
            Map<String, Object> byDatabase = (Map<String, Object>) handlers.get(requests);
            byDatabase.put(SHARED_DATABASE, new LocalDBClient(database, new JobsRegister(new JobPool(), false)));
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("DynamoDB Local's request handler is not as 2.6.1 builds it: " + e, e);
        }
    }

    /** DynamoDB Local's job pool, less the TTL scheduler: submitted, it is dropped, and so never runs. */
    private static final class JobPool extends ThreadPoolExecutor {

        JobPool() {
            super(JOB_THREADS, JOB_THREADS, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), Executors.defaultThreadFactory());
        }

        @Override
        public Future<?> submit(Runnable task) {
            if (task instanceof TimeToLiveDeletionJobScheduler) {
                return CompletableFuture.completedFuture(null);
            }
            return super.submit(task);
        }
    }
}
