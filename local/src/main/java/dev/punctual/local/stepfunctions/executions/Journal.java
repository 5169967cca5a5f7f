package dev.punctual.local.stepfunctions.executions;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** Where the engine's records go: nowhere (in memory) or a durable {@link FileJournal}. */
interface Journal extends AutoCloseable {

    /** Appends a record; the future completes once it is durable. Records keep their append order. */
    CompletableFuture<Void> append(byte[] record);

    @Override
    void close();

    /** Writes the engine's whole state as records, for a snapshot. */
    interface SnapshotSource {
        void writeSnapshot(Consumer<byte[]> sink);
    }

    /** Keeps nothing: state lives and dies with the process. */
    Journal IN_MEMORY = new Journal() {
        private final CompletableFuture<Void> done = CompletableFuture.completedFuture(null);

        @Override
        public CompletableFuture<Void> append(byte[] record) {
            return done;
        }

        @Override
        public void close() {
        }
    };
}
