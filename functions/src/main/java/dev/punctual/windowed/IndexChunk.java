package dev.punctual.windowed;

import java.util.List;
import java.util.Objects;

/**
 * One index item: the entries of one stream batch due in one second of a table, named by a digest of
 * its content ({@link dev.punctual.names.Digests#chunkDigest}), so writing it again changes
 * nothing.
 */
public record IndexChunk(String table, long second, String digest, List<IndexEntry> entries) {

    public IndexChunk {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(digest, "digest");
        entries = List.copyOf(entries);
    }
}
