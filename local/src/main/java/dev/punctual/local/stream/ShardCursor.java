package dev.punctual.local.stream;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Where reading one shard stands: its iterator, the last record read, the records read and not yet
 * processed, when to read it next, and whether it is exhausted (closed and read to its end) or
 * finished (exhausted and every record processed).
 */
final class ShardCursor {

    final String shardId;
    final String parentShardId;
    final Deque<FetchedRecord> buffer = new ArrayDeque<>();
    String iterator;
    String lastRead;
    Instant nextFetch = Instant.MIN;
    boolean exhausted;
    boolean finished;

    ShardCursor(String shardId, String parentShardId, boolean finished) {
        this.shardId = shardId;
        this.parentShardId = parentShardId;
        this.finished = finished;
    }

    /** Records in the buffer that pass the filter criteria. */
    int matching() {
        int count = 0;
        for (FetchedRecord fetched : buffer) {
            if (fetched.matches()) {
                count++;
            }
        }
        return count;
    }
}
