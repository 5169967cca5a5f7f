package dev.punctual.expiry;

import dev.punctual.names.Digests;
import dev.punctual.names.ItemExecutionName;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.statemachine.StepFunctionsLimits;
import dev.punctual.statemachine.StreamWiring;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pure decision for one stream record: schedule, cancel or ignore, following native TTL's rules
 * (see {@link TtlValue}) and keeping at most one useful execution per item and TTL.
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
    private final boolean cancelStale;

    /**
     * @param ttlAttribute the table's TTL attribute name
     * @param cancelStale whether to stop executions made stale by a TTL change or an application delete
     */
    public ExpiryRules(String ttlAttribute, boolean cancelStale) {
        this.ttlAttribute = StreamWiring.requireSafeAttributeName(ttlAttribute);
        this.cancelStale = cancelStale;
    }

    /** The TTL attribute name the rules read. */
    public String ttlAttribute() {
        return ttlAttribute;
    }

    /** Decides what {@code change} calls for at {@code now}. */
    public Decision decide(StreamChange change, Instant now) {
        Optional<String> keyProblem = change.key().problem();
        if (keyProblem.isPresent()) {
            return Decision.ignore(Reason.KEY_NOT_VALID, "key not valid: " + keyProblem.get() + "; not scheduled", ttlText(change.newTtl()));
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
            return schedule(change, valid, now, Reason.TTL_SET, List.of());
        }
        TtlValue.Invalid invalid = (TtlValue.Invalid) check;
        return Decision.ignore(invalid.reason(), invalid.detail(), ttlText(change.newTtl()));
    }

    private Decision modify(StreamChange change, Instant now) {
        if (!change.newImage()) {
            return missingImage(change, "a new");
        }
        AttributeText oldTtl = change.oldTtl();
        AttributeText newTtl = change.newTtl();
        if (oldTtl != null && newTtl != null && oldTtl.type() == AttributeType.N && oldTtl.equals(newTtl)) {
            return Decision.ignore(Reason.TTL_UNCHANGED, "TTL unchanged; the pending execution still fits", newTtl.text());
        }
        // Changed: by text, not value, because the conditional delete compares the stored text
        // (1.7E9 and 1700000000 are equal numbers, yet "changed" keeps the delete's value current).
        List<String> stops = cancelStale && change.oldImage() ? staleExecutions(change, now) : List.of();
        TtlValue.Check check = TtlValue.check(newTtl, ttlAttribute, now);
        if (check instanceof TtlValue.Valid valid) {
            Reason reason = change.oldImage() && oldTtl != null ? Reason.TTL_CHANGED : Reason.TTL_SET;
            return schedule(change, valid, now, reason, stops);
        }
        TtlValue.Invalid invalid = (TtlValue.Invalid) check;
        if (stops.isEmpty()) {
            return Decision.ignore(invalid.reason(), invalid.detail(), ttlText(newTtl));
        }
        if (invalid.reason() == Reason.NO_TTL) {
            return Decision.cancel(Reason.TTL_REMOVED, "TTL removed; stopping the execution for the old TTL " + oldTtl.text(), stops, null);
        }
        return Decision.cancel(Reason.TTL_NO_LONGER_VALID, invalid.detail() + "; stopping the execution for the old TTL "
                + oldTtl.text(), stops, ttlText(newTtl));
    }

    private Decision remove(StreamChange change, Instant now) {
        String oldText = ttlText(change.oldTtl());
        if (change.writer() == StreamChange.Writer.TTL_SERVICE) {
            return Decision.ignore(Reason.REMOVED_BY_TTL_SERVICE, "deleted by native TTL; nothing to stop", oldText);
        }
        if (!change.oldImage()) {
            return missingImage(change, "an old");
        }
        if (!(TtlValue.check(change.oldTtl(), ttlAttribute, now) instanceof TtlValue.Valid old)) {
            return Decision.ignore(Reason.REMOVED, "deleted; no valid TTL in the old image, so nothing was scheduled", oldText);
        }
        Optional<Instant> written = change.approximateCreationTime();
        if (written.isPresent() && atExpiry(change, old)) {
            return Decision.ignore(Reason.REMOVED_AT_EXPIRY, "deleted at its TTL (Punctual's expiry delete); nothing to stop", oldText);
        }
        if (!cancelStale) {
            return Decision.ignore(Reason.REMOVED, "deleted before its TTL; cancellation is off, the pending execution"
                    + " will find the item gone", oldText);
        }
        return Decision.cancel(Reason.ITEM_DELETED, "deleted before its TTL; stopping its execution", staleExecutions(change, now), oldText);
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

    private Decision schedule(StreamChange change, TtlValue.Valid valid, Instant now, Reason reason, List<String> stops) {
        String name = ItemExecutionName.first(change.table(), change.key(), valid.ttl()).toString();
        long hops = horizonHops(valid.expireAt(), now);
        ExecutionInput input = new ExecutionInput(change.table(), change.key(), ttlAttribute, valid.ttl().text(),
                valid.expireAt(), hops, name);
        // Room for the longest name a restart can give, so a restart never crosses the limit.
        int size = input.sizeInBytes() + ItemExecutionName.RESTART_SUFFIX_LENGTH;
        if (size > StepFunctionsLimits.MAX_PAYLOAD_BYTES) {
            String detail = "execution input of " + size + " bytes exceeds Step Functions' " + StepFunctionsLimits.MAX_PAYLOAD_BYTES
                    + "; not scheduled";
            return stops.isEmpty()
                    ? Decision.ignore(Reason.INPUT_TOO_LARGE, detail, valid.ttl().text())
                    : Decision.cancel(Reason.INPUT_TOO_LARGE, detail + "; stopping the execution for the old TTL", stops, valid.ttl().text());
        }
        String detail = (reason == Reason.TTL_CHANGED ? "TTL changed" : "TTL set") + "; expires at " + valid.expireAt()
                + (hops > 0 ? " after " + hops + " horizon hop" + (hops == 1 ? "" : "s") : "")
                + (stops.isEmpty() ? "" : "; stopping the execution for the old TTL");
        return Decision.schedule(reason, detail, new ExecutionRequest(name, input), stops);
    }

    /**
     * Whole horizons to hop before the final wait: none when the wait fits one horizon, else as many
     * as leave a final wait shorter than a horizon.
     */
    static long horizonHops(Instant expireAt, Instant now) {
        Duration wait = Duration.between(now, expireAt);
        return wait.compareTo(ExpiryWorkflow.HORIZON) > 0 ? wait.dividedBy(ExpiryWorkflow.HORIZON) : 0;
    }

    /**
     * The executions that may be waiting for the old image's TTL: the chain's first execution, and
     * while more than a horizon remains, the successors that can be the live one by now. A chain
     * {@code n} hops long runs {@code <name>-h<j>} while between {@code (j-1)} and {@code j} horizons
     * (plus the part-horizon remainder, minus hop start-up delays) remain, so with {@code q} whole
     * horizons left the live successor is {@code -h<q>}, {@code -h<q+1>} or {@code -h<q+2>}.
     * Within the last horizon the chain's final successors are not stopped: where a chain began is
     * not recorded, so a chain cannot be told from a short wait there, and a stale final
     * execution's conditional delete finds a changed item and ends as Superseded anyway.
     */
    private List<String> staleExecutions(StreamChange change, Instant now) {
        if (!(TtlValue.check(change.oldTtl(), ttlAttribute, now) instanceof TtlValue.Valid old)) {
            return List.of();
        }
        ItemExecutionName chain = ItemExecutionName.first(change.table(), change.key(), old.ttl());
        List<String> names = new ArrayList<>(4);
        names.add(chain.toString());
        Duration remaining = Duration.between(now, old.expireAt());
        if (remaining.compareTo(ExpiryWorkflow.HORIZON) >= 0) {
            long whole = remaining.dividedBy(ExpiryWorkflow.HORIZON);
            for (long hops = whole; hops <= whole + 2; hops++) {
                names.add(chain.successor(hops).toString());
            }
        }
        return names;
    }

    private Decision missingImage(StreamChange change, String image) {
        return Decision.ignore(Reason.NO_TTL, change.eventName() + " record without " + image
                + " image; the stream view type must be NEW_AND_OLD_IMAGES", null);
    }

    private static String ttlText(AttributeText ttl) {
        return ttl == null ? null : ttl.text();
    }
}
