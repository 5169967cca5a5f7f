package dev.punctual.windowed;

import dev.punctual.statemachine.ExpiryMode;
import java.util.Locale;
import java.util.Optional;

/**
 * The levels of windowed mode's timing wheel. An item is indexed once, under its own second, and
 * starts the execution of the coarsest bucket it needs: far-out items share day, hour or minute
 * buckets; ahead of time each coarse bucket <em>cascades</em>, starting the executions of the finer
 * non-empty buckets it contains, until one-second buckets delete their items. Open executions
 * therefore grow with the number of buckets in reach of each level, not with the number of items.
 *
 * <p>A coarse bucket cascades {@link #cascadeLead} seconds before it starts. That lead plus its
 * width is the <em>horizon</em> of the next finer level: when a minute bucket cascades, its seconds
 * are 60 to 120 s away, so an item due within 120 s goes straight into a one-second bucket.
 * Open executions at each level are bounded by horizon / width: at most 120 one-second, 70 minute,
 * 30 hour buckets per table, plus one day bucket per day of TTLs further out than 30 hours.
 * See {@link ExpiryMode#WINDOWED}.
 */
public enum BucketLevel {

    /** Deletes its items at its second. */
    SECOND(1, 0),
    /** Cascades 60 s before it starts, into one-second buckets. */
    MINUTE(60, 60),
    /** Cascades 10 minutes before it starts, into minute buckets. */
    HOUR(3_600, 600),
    /** Cascades 6 hours before it starts, into hour buckets. */
    DAY(86_400, 21_600);

    private final long width;
    private final long cascadeLead;

    BucketLevel(long width, long cascadeLead) {
        this.width = width;
        this.cascadeLead = cascadeLead;
    }

    /** Seconds a bucket of this level spans. */
    public long width() {
        return width;
    }

    /** Seconds before its start a bucket of this level cascades (0 for {@link #SECOND}). */
    public long cascadeLead() {
        return cascadeLead;
    }

    /** The label in execution names, inputs and seals. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The next finer level; empty for {@link #SECOND}. */
    public Optional<BucketLevel> finer() {
        return ordinal() == 0 ? Optional.empty() : Optional.of(values()[ordinal() - 1]);
    }

    /** The next coarser level; empty for {@link #DAY}. */
    public Optional<BucketLevel> coarser() {
        return ordinal() == values().length - 1 ? Optional.empty() : Optional.of(values()[ordinal() + 1]);
    }

    /**
     * Items due less than this many seconds ahead fit this level: its coarser level cascades into it
     * this far ahead at most. {@link Long#MAX_VALUE} for {@link #DAY}.
     */
    public long horizon() {
        return coarser().map(parent -> parent.cascadeLead + parent.width).orElse(Long.MAX_VALUE);
    }

    /** The first second of the bucket of this level that holds {@code second}. */
    public long startOf(long second) {
        return Math.floorDiv(second, width) * width;
    }

    /** The finest level whose horizon reaches an item due {@code leadSeconds} from now. */
    public static BucketLevel forLead(long leadSeconds) {
        for (BucketLevel level : values()) {
            if (leadSeconds < level.horizon()) {
                return level;
            }
        }
        return DAY;
    }

    /**
     * The level a label names.
     *
     * @throws IllegalArgumentException when none does
     */
    public static BucketLevel fromLabel(String label) {
        for (BucketLevel level : values()) {
            if (level.label().equals(label)) {
                return level;
            }
        }
        throw new IllegalArgumentException("unknown bucket level '" + label + "'; expected second, minute, hour or day");
    }
}
