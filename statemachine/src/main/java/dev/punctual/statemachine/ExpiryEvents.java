package dev.punctual.statemachine;

/**
 * The {@code ItemExpired} events the stream handler publishes to EventBridge, one per expiry: their
 * source, detail type and detail fields, and the limits of {@code PutEvents} they are sent within.
 * The handler writes them, the construct's grants and the rule example in docs/deploy.md match them, and the
 * local runtime's EventBridge endpoint checks them, all from here.
 */
public final class ExpiryEvents {

    /** The event's {@code source}: what an EventBridge rule matches to receive expiries. */
    public static final String SOURCE = "punctual";
    /** The event's {@code detail-type}. */
    public static final String DETAIL_TYPE = "Item Expired";

    /** Optional: the bus (name or ARN) to publish to; events are off when it is absent. */
    public static final String ENV_EVENT_BUS = "PUNCTUAL_EVENT_BUS";
    /** Optional: {@code true} to put the item's old image into each event (user data, so off by default). */
    public static final String ENV_INCLUDE_OLD_IMAGE = "PUNCTUAL_INCLUDE_OLD_IMAGE";
    /** Optional: EventBridge endpoint override (the local runtime), e.g. {@code http://127.0.0.1:8084}. */
    public static final String ENV_EVENTS_ENDPOINT = "PUNCTUAL_EVENTS_ENDPOINT";

    /** PutEvents takes at most this many entries per call. */
    public static final int MAX_ENTRIES_PER_CALL = 10;
    /**
     * PutEvents' limit for one entry, in bytes, counted as EventBridge counts it: the UTF-8 bytes of
     * source, detail type, detail and each resource, plus 14 for the time.
     */
    public static final int MAX_ENTRY_BYTES = 256 * 1024;
    /** What an entry's time counts toward {@link #MAX_ENTRY_BYTES}. */
    public static final int TIME_BYTES = 14;

    /** Detail field: the deterministic id, equal for every delivery of the same expiry. */
    public static final String ID = "id";
    /** Detail field: the table's name. */
    public static final String TABLE = "table";
    /** Detail field: the item's key in DynamoDB JSON. */
    public static final String KEY = "key";
    /** Detail field: the TTL attribute's name. */
    public static final String TTL_ATTRIBUTE = "ttlAttribute";
    /** Detail field: the TTL Number exactly as stored. */
    public static final String TTL = "ttl";
    /** Detail field: {@link #BY_PUNCTUAL} or {@link #BY_NATIVE_TTL}. */
    public static final String EXPIRED_BY = "expiredBy";
    /** Detail field: when the handler read the delete from the stream (RFC 3339, milliseconds). */
    public static final String DELETED_AT = "deletedAt";
    /** Detail field: {@link #DELETED_AT} minus the TTL, in milliseconds. */
    public static final String LAG_MS = "lagMs";
    /** Detail field, with {@code includeOldImage}: the item as it was, in DynamoDB JSON. */
    public static final String OLD_IMAGE = "oldImage";
    /** Detail field: why the old image was left out ({@link #OMITTED_FOR_SIZE}). */
    public static final String OLD_IMAGE_OMITTED = "oldImageOmitted";
    /** {@link #OLD_IMAGE_OMITTED}'s value when the image would have made the entry too large. */
    public static final String OMITTED_FOR_SIZE = "size";

    /** {@link #EXPIRED_BY}: Punctual's conditional delete at the TTL. */
    public static final String BY_PUNCTUAL = "punctual";
    /** {@link #EXPIRED_BY}: DynamoDB's own TTL process (the backstop). */
    public static final String BY_NATIVE_TTL = "native-ttl";

    private ExpiryEvents() {
    }
}
