package dev.punctual.backfill;

import dev.punctual.expiry.Reason;
import java.util.Objects;

/**
 * What the mode's scheduling did with one scanned item.
 *
 * @param kind scheduled, deleted at once, skipped or failed
 * @param reason the rule that decided it (for {@link Kind#SKIPPED}, why it was not scheduled)
 * @param detail the decision's explanation (never a key value or an item image)
 * @param error for {@link Kind#FAILED}, what failed; {@code null} otherwise
 */
public record ItemOutcome(Kind kind, Reason reason, String detail, RuntimeException error) {

    /** The four things that can become of an item. */
    public enum Kind {
        /** An execution (per item) or an index entry and its bucket (windowed) now holds it. */
        SCHEDULED,
        /** Its TTL had passed: deleted at once, or given an execution that deletes at once. */
        DELETED_NOW,
        /** Not scheduled: see the reason. */
        SKIPPED,
        /** Scheduling it failed; the page is retried whole. */
        FAILED
    }

    public ItemOutcome {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.FAILED) {
            Objects.requireNonNull(error, "a failed outcome carries its error");
        }
    }

    /** An outcome that is not a failure. */
    public static ItemOutcome of(Kind kind, Reason reason, String detail) {
        return new ItemOutcome(kind, reason, detail, null);
    }

    /** A failure. */
    public static ItemOutcome failed(Reason reason, RuntimeException error) {
        return new ItemOutcome(Kind.FAILED, reason, error.getMessage(), error);
    }
}
