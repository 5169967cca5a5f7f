package dev.punctual.backfill;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Reads the table a backfill scans: its shape, and one page of one Scan segment at a time. */
public interface TableReader {

    /** A table's key attribute names and, if native TTL is on, its TTL attribute. */
    record TableShape(List<String> keyAttributes, Optional<String> ttlAttribute) {
        public TableShape {
            keyAttributes = List.copyOf(keyAttributes);
            Objects.requireNonNull(ttlAttribute, "ttlAttribute");
        }
    }

    /**
     * One item as the Scan read it: its key, and its TTL attribute ({@code null} when it has none).
     * Nothing else of the item is read.
     */
    record ScannedItem(ItemKey key, AttributeText ttl) {
        public ScannedItem {
            Objects.requireNonNull(key, "key");
        }
    }

    /** A page: its items, and the key to continue after ({@code null} when the segment has no more). */
    record ScannedPage(List<ScannedItem> items, ItemKey lastKey) {
        public ScannedPage {
            items = List.copyOf(items);
        }
    }

    /**
     * The table's shape.
     *
     * @throws BackfillInputException when the table does not exist
     */
    TableShape describe(String table);

    /**
     * Reads up to {@code limit} items of segment {@code segment} of {@code segments}, after
     * {@code startAfter} ({@code null}: from the segment's start), projecting the key and the TTL attribute.
     */
    ScannedPage scan(String table, int segment, int segments, List<String> keyAttributes, String ttlAttribute,
            ItemKey startAfter, int limit);
}
