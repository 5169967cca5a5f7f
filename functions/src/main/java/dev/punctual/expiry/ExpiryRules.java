package dev.punctual.expiry;

import dev.punctual.names.Digests;
import dev.punctual.statemachine.StreamWiring;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The pure decision for one stream record, following native TTL's rules (see {@link TtlValue}): what
 * the record means for its item (a TTL to expire it at, nothing, or an earlier TTL left stale), the same
 * in every mode. How a mode schedules that, and whether it stops what was left stale, is the mode's
 * ({@link Scheduler#plan}).
 */
public final class ExpiryRules {

    /**
     * How long after a REMOVE record's approximate creation time an old TTL may lie and the delete
     * still count as Punctual's own expiry delete. Stream records give that time rounded down to the
     * minute (DynamoDB Local, and DynamoDB Streams itself), so our delete at or after the TTL carries
     * a time up to 60 s before it. An application delete within the last minute before the TTL looks
     * the same; skipping its stop costs nothing, as its execution wakes within that minute and its
     * conditional delete finds the item gone.
     */
    public static final Duration EXPIRY_DELETE_WINDOW = Duration.ofSeconds(60);

    private final String ttlAttribute;

    /** @param ttlAttribute the table's TTL attribute name */
    public ExpiryRules(String ttlAttribute) {
        this.ttlAttribute = StreamWiring.requireSafeAttributeName(ttlAttribute);
    }

    /** The TTL attribute name the rules read. */
    public String ttlAttribute() {
        return ttlAttribute;
    }

    /** Decides what {@code change} calls for at {@code now}. */
    public Decision decide(StreamChange change, Instant now) {
        Optional<String> keyProblem = change.key().problem();
        if (keyProblem.isPresent()) {
            return ignore(change, Reason.KEY_NOT_VALID, "key not valid: " + keyProblem.get() + "; not scheduled",
                    ttlText(change.newTtl()), null);
        }
        return switch (change.eventName()) {
            case INSERT -> insert(change, now);
            case MODIFY -> modify(change, now);
            case REMOVE -> remove(change, now);
        };
    }

    private Decision insert(StreamChange change, Instant now) {
        if (!change.newImage()) {
            return missingImage(change, "a new");
        }
        TtlValue.Check check = TtlValue.check(change.newTtl(), ttlAttribute, now);
        if (check instanceof TtlValue.Valid valid) {
            return schedule(change, valid, Reason.TTL_SET, null);
        }
        TtlValue.Invalid invalid = (TtlValue.Invalid) check;
        return ignore(change, invalid.reason(), invalid.detail(), ttlText(change.newTtl()), null);
    }

    private Decision modify(StreamChange change, Instant now) {
        if (!change.newImage()) {
            return missingImage(change, "a new");
        }
        AttributeText oldTtl = change.oldTtl();
        AttributeText newTtl = change.newTtl();
        if (oldTtl != null && newTtl != null && oldTtl.type() == AttributeType.N && oldTtl.equals(newTtl)) {
            return ignore(change, Reason.TTL_UNCHANGED, "TTL unchanged; the pending execution still fits", newTtl.text(), null);
        }
        // Changed: by text, not value, because the conditional delete compares the stored text
        // (1.7E9 and 1700000000 are equal numbers, yet "changed" keeps the delete's value current).
        TtlValue stale = change.oldImage() && TtlValue.check(oldTtl, ttlAttribute, now) instanceof TtlValue.Valid old
                ? old.ttl() : null;
        TtlValue.Check check = TtlValue.check(newTtl, ttlAttribute, now);
        if (check instanceof TtlValue.Valid valid) {
            Reason reason = change.oldImage() && oldTtl != null ? Reason.TTL_CHANGED : Reason.TTL_SET;
            return schedule(change, valid, reason, stale);
        }
        TtlValue.Invalid invalid = (TtlValue.Invalid) check;
        return ignore(change, invalid.reason(), invalid.detail(), ttlText(newTtl), stale);
    }

    private Decision remove(StreamChange change, Instant now) {
        String oldText = ttlText(change.oldTtl());
        if (change.writer() == StreamChange.Writer.TTL_SERVICE) {
            return ignore(change, Reason.REMOVED_BY_TTL_SERVICE, "deleted by native TTL; nothing to stop", oldText, null);
        }
        if (!change.oldImage()) {
            return missingImage(change, "an old");
        }
        if (!(TtlValue.check(change.oldTtl(), ttlAttribute, now) instanceof TtlValue.Valid old)) {
            return ignore(change, Reason.REMOVED, "deleted; no valid TTL in the old image, so nothing was scheduled", oldText, null);
        }
        Optional<Instant> written = change.approximateCreationTime();
        if (written.isPresent() && atExpiry(change, old)) {
            return ignore(change, Reason.REMOVED_AT_EXPIRY, "deleted at its TTL (Punctual's expiry delete); nothing to stop",
                    oldText, null);
        }
        // Worded for a mode that leaves the stale expiry alone (windowed, or per item with cancellation
        // off); a mode that stops it restates the decision.
        return ignore(change, Reason.REMOVED, "deleted before its TTL; cancellation is off, the pending execution"
                + " will find the item gone", oldText, old.ttl());
    }

    /**
     * The expiry a REMOVE record shows, if it shows one, read at {@code now}: a delete by native TTL,
     * or one with no identity that counts as Punctual's own ({@link Reason#REMOVED_AT_EXPIRY}) and that
     * the handler reads at or after the TTL. Punctual never deletes before the TTL, so a delete read
     * before it was an application's; an application's delete read after the TTL, within the stream's
     * delay of it, cannot be told apart and counts as an expiry.
     */
    public Optional<Expiry> expiry(StreamChange change, Instant now) {
        if (change.eventName() != EventName.REMOVE) {
            return Optional.empty();
        }
        String oldText = ttlText(change.oldTtl());
        if (change.writer() == StreamChange.Writer.TTL_SERVICE) {
            return Optional.of(new Expiry(change.table(), change.key(), oldText, Expiry.By.NATIVE_TTL, now,
                    Digests.expiryEventId(change.table(), change.key(), oldText, change.sequenceNumber())));
        }
        if (!change.oldImage() || !(TtlValue.check(change.oldTtl(), ttlAttribute, now) instanceof TtlValue.Valid old)
                || !atExpiry(change, old) || now.isBefore(old.ttl().instant())) {
            return Optional.empty();
        }
        return Optional.of(new Expiry(change.table(), change.key(), oldText, Expiry.By.PUNCTUAL, now,
                Digests.expiryEventId(change.table(), change.key(), oldText, change.sequenceNumber())));
    }

    /** Whether a delete with no identity was written late enough to be Punctual's at-the-TTL delete. */
    private static boolean atExpiry(StreamChange change, TtlValue.Valid old) {
        Optional<Instant> written = change.approximateCreationTime();
        return written.isEmpty() || !old.ttl().expireAt().isAfter(written.get().plus(EXPIRY_DELETE_WINDOW));
    }

    private Decision schedule(StreamChange change, TtlValue.Valid valid, Reason reason, TtlValue stale) {
        String detail = (reason == Reason.TTL_CHANGED ? "TTL changed" : "TTL set") + "; expires at " + valid.expireAt();
        return Decision.schedule(change, ttlAttribute, reason, detail, valid.ttl(), stale);
    }

    private Decision ignore(StreamChange change, Reason reason, String detail, String ttl, TtlValue stale) {
        return Decision.ignore(change, ttlAttribute, reason, detail, ttl, stale);
    }

    private Decision missingImage(StreamChange change, String image) {
        return ignore(change, Reason.NO_TTL, change.eventName() + " record without " + image
                + " image; the stream view type must be NEW_AND_OLD_IMAGES", null, null);
    }

    private static String ttlText(AttributeText ttl) {
        return ttl == null ? null : ttl.text();
    }
}
