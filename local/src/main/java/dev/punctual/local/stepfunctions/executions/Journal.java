package dev.punctual.local.stepfunctions.executions;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** Where the engine's records go: nowhere (in memory) or a durable {@link FileJournal}. */
interface Journal extends AutoCloseable {

    /** Appends a record; the future completes once it is durable. Records keep their append order. */
    CompletableFuture<Void> append(byte[] record);

    @Override
    void close();

    /** Writes the engine's state as records, for a compaction ({@link JournalCompaction}). */
    interface SnapshotSource {
        void writeSnapshot(SnapshotWriter writer);
    }

    /**
     * Where a compaction's records go: what may still change into the snapshot, which is rewritten each
     * time; a closed execution, which never changes, into a closed-execution file once.
     */
    interface SnapshotWriter {

        /** A record of what may still change (state machines, running executions): into the snapshot. */
        void snapshot(byte[] record);

        /**
         * A closed execution filed by no compaction yet ({@link JournalCodec#filed}): into this compaction's
         * closed-execution file; {@code filed} is told that file once it is durable, and not before.
         */
        void fileClosed(byte[] record, Consumer<ClosedFile> filed);

        /** A closed execution still kept, filed by an earlier compaction: its file must stay. */
        void stillKept(ClosedFile file);
    }

    /** One closed-execution file ({@code closed-N.log}), as the executions filed in it refer to it. */
    record ClosedFile(long sequence) {
    }

    /** Where replayed records go, with the closed-execution file each came from ({@code null}: from elsewhere). */
    interface Replayer {
        void replay(byte[] record, ClosedFile filedIn);
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
