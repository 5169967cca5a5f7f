package dev.punctual.local.stream;

import java.util.Objects;

/**
 * A table whose stream the poller reads: it has a stream and TTL enabled.
 *
 * @param tableName    the table
 * @param streamArn    its current stream ({@code LatestStreamArn})
 * @param ttlAttribute the attribute DescribeTimeToLive names
 */
public record WatchedTable(String tableName, String streamArn, String ttlAttribute) {

    public WatchedTable {
        Objects.requireNonNull(tableName, "tableName");
        Objects.requireNonNull(streamArn, "streamArn");
        Objects.requireNonNull(ttlAttribute, "ttlAttribute");
    }
}
