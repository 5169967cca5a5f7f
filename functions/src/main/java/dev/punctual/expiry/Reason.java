package dev.punctual.expiry;

/**
 * Why a stream record led to what it did. Each reason is one row of the rules table; {@link #warn()}
 * marks the ones that point at a problem in the data the table's owner should fix. The rules give the
 * schedule and ignore reasons; the cancel reasons and {@link #INPUT_TOO_LARGE} are per-item mode's, which
 * restates a decision with them ({@link Decision#restated}) when it stops stale executions or meets its
 * payload limit.
 */
public enum Reason {
    /** Schedule: an item with a valid TTL appeared (INSERT, or a backfilled item). */
    TTL_SET(false),
    /** Schedule: a MODIFY set a TTL the item did not have or changed it. */
    TTL_CHANGED(false),
    /** Cancel (per item): a MODIFY removed the TTL attribute. */
    TTL_REMOVED(false),
    /** Cancel (per item): a MODIFY replaced a valid TTL with one that cannot be scheduled (see the detail). */
    TTL_NO_LONGER_VALID(true),
    /** Cancel (per item): an application deleted the item before its TTL. */
    ITEM_DELETED(false),

    /** Ignore: the image has no TTL attribute. */
    NO_TTL(false),
    /** Ignore: the TTL attribute is not a Number; native TTL ignores it too. */
    TTL_NOT_A_NUMBER(true),
    /** Ignore: the Number is not a decimal number (never written by DynamoDB itself). */
    TTL_NOT_PARSEABLE(true),
    /** Ignore: the TTL is more than 5 years in the past; native TTL never deletes such items either. */
    TTL_TOO_OLD(false),
    /** Ignore: the TTL is far beyond any sensible date in seconds, almost always milliseconds. */
    TTL_LOOKS_LIKE_MILLISECONDS(true),
    /** Ignore: a MODIFY that left the TTL as it was; the running execution still fits. */
    TTL_UNCHANGED(false),
    /** Ignore: native TTL deleted the item; nothing is pending any more. */
    REMOVED_BY_TTL_SERVICE(false),
    /** Ignore: the delete came at or after the TTL, so it is Punctual's own expiry delete. */
    REMOVED_AT_EXPIRY(false),
    /**
     * Ignore: a REMOVE that needs no stop: no valid TTL in the old image, or a delete before the TTL in a
     * mode that leaves the stale expiry to its conditional delete (windowed; per item with cancellation off).
     */
    REMOVED(false),
    /** Ignore: the key cannot exist in DynamoDB (a hand-made or corrupted record). */
    KEY_NOT_VALID(true),
    /** Ignore (per item): the execution input would exceed the Step Functions payload limit. */
    INPUT_TOO_LARGE(true);

    private final boolean warn;

    Reason(boolean warn) {
        this.warn = warn;
    }

    /** Whether the decision is logged as a warning: bad data the owner should fix. */
    public boolean warn() {
        return warn;
    }
}
