package dev.punctual.backfill;

import dev.punctual.statemachine.StreamWiring;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What to backfill and how fast.
 *
 * @param table the table to scan
 * @param ttlAttribute its TTL attribute
 * @param totalSegments parallel Scan segments (1-1000), each scanned by its own thread
 * @param itemsPerSecond items processed per second over all segments; {@code 0} for no limit
 * @param pageSize items per Scan page (1 MB of projected items at most anyway); {@code 0} for DynamoDB's default
 * @param progressFile where progress is saved after every page and resumed from, {@code null} for none
 */
public record BackfillOptions(String table, String ttlAttribute, int totalSegments, double itemsPerSecond, int pageSize,
        Path progressFile) {

    public BackfillOptions {
        Objects.requireNonNull(table, "table");
        StreamWiring.requireSafeAttributeName(ttlAttribute);
        if (totalSegments < 1 || totalSegments > 1000) {
            throw new IllegalArgumentException("totalSegments must be 1 to 1000, got " + totalSegments);
        }
        if (pageSize < 0) {
            throw new IllegalArgumentException("pageSize must be positive, or 0 for DynamoDB's default; got " + pageSize);
        }
    }

    /** The progress file, if progress is kept. */
    public Optional<Path> progress() {
        return Optional.ofNullable(progressFile);
    }
}
