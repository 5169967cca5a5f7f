package dev.punctual.windowed;

import dev.punctual.statemachine.ExpiryMode;
import java.util.Locale;
import java.util.Optional;

/**
 * The levels of windowed mode's timing wheel. An item is indexed once, under its own second, and
 * starts the execution of the coarsest bucket it needs, a minute bucket at the finest: far-out items
 * share day or hour buckets, which ahead of time <em>cascade</em>, starting the executions of the finer
 * non-empty buckets they contain, down to minute buckets. A minute bucket's runner (an Express
 * execution, {@link BucketWorker#step}) then deletes the items of each of its due seconds at that second.
 * One-second buckets are a fallback only: for an item written for a second its minute's runner will not
 * reach. Open executions therefore grow with the number of buckets in reach of each level, not with the
 * number of items.
 *
 * <p>A coarse bucket cascades {@link #cascadeLead} seconds before it starts. That lead plus its
 * width is the <em>horizon</em> of the next finer level: an item due within 70 minutes goes straight into
 * a minute bucket, within 30 hours into an hour bucket. A minute bucket's lead is a second: its
 * execution wakes {@link dev.punctual.statemachine.BucketWorkflow#WARM_LEAD} before the first second it
 * holds, and a one-second bucket's lead is that same second. Open executions at each level are bounded by
 * horizon / width: at most 70 minute and 30 hour buckets per table, plus one day bucket per day of TTLs
 * further out than 30 hours, plus the one-second fallbacks of the next minute or two.
 * See {@link ExpiryMode#WINDOWED}.
 */
public enum BucketLevel {

    /** A fallback: deletes its items at its second, waking a second before it. */
    SECOND(1, 1),
    /** Runs its seconds itself, waking a second before the first of them. */
    MINUTE(60, 1),
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

    /**
     * Seconds before its start a bucket of this level wakes at the latest: a coarse bucket to cascade, a
     * minute or one-second bucket to seal and read its first second ahead of it.
     */
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

    /**
     * The finest level whose horizon reaches an item due {@code leadSeconds} from now, a minute at the
     * finest: items are never placed in one-second buckets directly (see the class comment).
     */
    public static BucketLevel forLead(long leadSeconds) {
        for (BucketLevel level : values()) {
            if (level != SECOND && leadSeconds < level.horizon()) {
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
