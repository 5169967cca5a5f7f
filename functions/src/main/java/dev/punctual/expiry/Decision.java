package dev.punctual.expiry;

import java.util.Objects;
import java.util.Optional;

/**
 * What the rules found for one stream record: the verdict and its reason, the item (table and key),
 * its new TTL when there is one to expire it at, the old TTL when the change left an expiry already
 * scheduled for it stale, and a sentence for the log line. It says nothing of how a mode schedules the
 * item: each mode's {@link Scheduler#plan} decides what a decision means for it, and may restate the
 * decision in its own words ({@link #restated}) before the log reads it.
 */
public final class Decision {

    /** The headline of a decision, as logged under {@code decision}. */
    public enum Verdict {
        /** Expire the item at its new TTL. */
        SCHEDULE,
        /**
         * Stop what the change left stale and schedule nothing. The rules never say this: a mode that
         * stops stale work (per item) restates an {@link #IGNORE} with an old TTL this way.
         */
        CANCEL,
        /** Nothing to schedule. */
        IGNORE
    }

    private final Verdict verdict;
    private final Reason reason;
    private final String detail;
    private final String table;
    private final ItemKey key;
    private final String ttlAttribute;
    private final TtlValue newTtl;
    private final TtlValue oldTtl;
    private final String ttl;

    private Decision(Verdict verdict, Reason reason, String detail, String table, ItemKey key, String ttlAttribute,
            TtlValue newTtl, TtlValue oldTtl, String ttl) {
        this.verdict = Objects.requireNonNull(verdict, "verdict");
        this.reason = Objects.requireNonNull(reason, "reason");
        this.detail = Objects.requireNonNull(detail, "detail");
        this.table = Objects.requireNonNull(table, "table");
        this.key = Objects.requireNonNull(key, "key");
        this.ttlAttribute = Objects.requireNonNull(ttlAttribute, "ttlAttribute");
        this.newTtl = newTtl;
        this.oldTtl = oldTtl;
        this.ttl = ttl;
        if (verdict == Verdict.SCHEDULE && newTtl == null) {
            throw new IllegalArgumentException("a decision to schedule needs the new TTL to expire the item at");
        }
        if (verdict == Verdict.CANCEL && oldTtl == null) {
            throw new IllegalArgumentException("a cancel needs the stale old TTL it stops the expiry of");
        }
    }

    /** Expire {@code change}'s item at {@code newTtl}; {@code oldTtl} is the TTL the change left stale, if any. */
    static Decision schedule(StreamChange change, String ttlAttribute, Reason reason, String detail, TtlValue newTtl,
            TtlValue oldTtl) {
        return new Decision(Verdict.SCHEDULE, reason, detail, change.table(), change.key(), ttlAttribute,
                Objects.requireNonNull(newTtl, "newTtl"), oldTtl, newTtl.text());
    }

    /**
     * Nothing to schedule for {@code change}'s item; {@code ttl} is the TTL text the record holds, if any,
     * for the log; {@code oldTtl} the TTL the change left stale, if any.
     */
    static Decision ignore(StreamChange change, String ttlAttribute, Reason reason, String detail, String ttl, TtlValue oldTtl) {
        return new Decision(Verdict.IGNORE, reason, detail, change.table(), change.key(), ttlAttribute, null, oldTtl, ttl);
    }

    /**
     * The same finding in a mode's words: what the mode does with it ({@code verdict}), why, and the log's
     * sentence. The item and its TTLs stay as the rules found them.
     *
     * @throws IllegalArgumentException when the verdict needs a TTL the rules did not find (a schedule
     *     without a new TTL, a cancel without a stale old one)
     */
    public Decision restated(Verdict verdict, Reason reason, String detail) {
        return new Decision(verdict, reason, detail, table, key, ttlAttribute, newTtl, oldTtl, ttl);
    }

    public Verdict verdict() {
        return verdict;
    }

    public Reason reason() {
        return reason;
    }

    /** A sentence for the log line; never holds key values or image content. */
    public String detail() {
        return detail;
    }

    /** The table the item is in. */
    public String table() {
        return table;
    }

    /** The item's key. */
    public ItemKey key() {
        return key;
    }

    /** The attribute the TTLs were read from: the one the conditional delete compares. */
    public String ttlAttribute() {
        return ttlAttribute;
    }

    /**
     * The valid TTL the item now has, to expire it at: present for {@link Verdict#SCHEDULE} (and kept when
     * a mode restates that decision as one it cannot carry out).
     */
    public Optional<TtlValue> newTtl() {
        return Optional.ofNullable(newTtl);
    }

    /**
     * The valid TTL the item had before this change, when the change left an expiry scheduled for it
     * stale: the TTL changed, was removed or became invalid, or the item was deleted before it. Whether
     * that stale expiry is stopped is the mode's to decide; left alone, its conditional delete finds the
     * item changed.
     */
    public Optional<TtlValue> oldTtl() {
        return Optional.ofNullable(oldTtl);
    }

    /** The TTL text the decision is about (the new one when there is one), for the log line. */
    public Optional<String> ttl() {
        return Optional.ofNullable(ttl);
    }

    /** The verdict, its reason and the TTLs: never the key, which may hold user data. */
    @Override
    public String toString() {
        return verdict + "(" + reason + (newTtl == null ? "" : ", new TTL " + newTtl)
                + (oldTtl == null ? "" : ", stale TTL " + oldTtl) + ")";
    }
}
