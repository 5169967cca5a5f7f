package dev.punctual.local.bench;

import dev.punctual.local.dynamodb.DynamoDbLocalServer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The floor under Punctual's lag on the embedded runtime, with no Punctual in the way: how fast
 * DynamoDB Local itself performs the conditional deletes that 1,000 items due in the same second
 * need. Each round writes {@code --burst} items to a fresh table with a stream, then deletes them all
 * at once from {@code --threads} threads through the in-process client (the state machine's path),
 * with the expiry's condition {@code #ttl = :ttl}, and prints the time until each delete completed.
 * Because TTLs are whole seconds, a burst of deletes is what every busy second looks like; the kth
 * delete of a burst cannot complete before k divided by this rate.
 *
 * <pre>
 * java -cp local/target/punctual.jar dev.punctual.local.bench.DeleteFloorBenchmark [--burst 1000] [--rounds 8] [--threads 16] [--data-dir DIR]
 * </pre>
 *
 * <p>With {@code --data-dir} DynamoDB Local keeps its database in that directory, as the durable
 * runtime does; without it, in memory.
 */
public final class DeleteFloorBenchmark {

    private DeleteFloorBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int burst = option(args, "--burst", 1000);
        int rounds = option(args, "--rounds", 8);
        int threads = option(args, "--threads", 16);
        Path dataDirectory = textOption(args, "--data-dir").map(Path::of).orElse(null);
        System.out.printf("DynamoDB Local conditional deletes, %d due at once, %d threads, in-process, %d CPUs, database %s%n",
                burst, threads, Runtime.getRuntime().availableProcessors(),
                dataDirectory == null ? "in memory" : "in " + dataDirectory);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, dataDirectory))) {
            DynamoDbClient dynamoDb = server.inProcess().dynamoDb();
            for (int round = 1; round <= rounds; round++) {
                String table = "floor-" + round;
                DeleteBurst.createTable(dynamoDb, table);
                DeleteBurst.fill(dynamoDb, table, "item-", burst, "written by the delete floor benchmark");
                long[] completed = DeleteBurst.deleteAll(dynamoDb, table, "item-", burst, pool, false);
                Arrays.sort(completed);
                long all = completed[burst - 1];
                System.out.printf("round %d: all %d deleted after %d ms (%.0f deletes/s); completion p50 %d ms,"
                        + " p99 %d ms%n", round, burst, all, burst * 1000.0 / Math.max(1, all),
                        completed[burst / 2], completed[(int) Math.ceil(burst * 0.99) - 1]);
            }
        } finally {
            pool.shutdownNow();
        }
        // DynamoDB Local leaves non-daemon threads behind after its server is stopped, which kept this
        // command from ever returning.
        System.exit(0);
    }

    private static int option(String[] args, String name, int fallback) {
        return textOption(args, name).map(Integer::parseInt).orElse(fallback);
    }

    private static Optional<String> textOption(String[] args, String name) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Optional.of(args[i + 1]);
            }
        }
        return Optional.empty();
    }
}
