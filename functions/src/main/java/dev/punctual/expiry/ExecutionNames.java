package dev.punctual.expiry;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * Deterministic execution names: the same item with the same TTL always gets the same name, so a
 * duplicate stream record, a retried batch or a backfill running beside the stream start nothing
 * twice. A name reads {@code <expiry>-<table>-<digest>}, e.g.
 * {@code 20261121T230512Z-orders-2qkcspxkyffuktdwa5gr}:
 * <ul>
 *   <li>{@code expiry}: the instant the execution deletes at, so the console sorts by it;</li>
 *   <li>{@code table}: the table name cut to {@value #TABLE_LABEL_LENGTH} characters (table names
 *       are {@code [A-Za-z0-9_.-]}, all legal in execution names; anything else becomes {@code _});</li>
 *   <li>{@code digest}: {@value #DIGEST_CHARS} base32 characters ({@value #DIGEST_BITS} bits) of a
 *       SHA-256 over the table, the key's canonical encoding and the TTL text. At a million pending
 *       items the chance of any collision is about 4e-19.</li>
 * </ul>
 * A base name is at most {@value #MAX_BASE_LENGTH} characters, leaving room for a restart suffix
 * ({@code -r} + 8) and a horizon successor's {@code -h<hops>} (at most {@code -h8100} for a TTL in
 * the year 9999) within Step Functions' 80.
 */
public final class ExecutionNames {

    /** Characters of the table name kept in a name. */
    public static final int TABLE_LABEL_LENGTH = 24;
    /** Base32 characters of the item digest in a name. */
    public static final int DIGEST_CHARS = 20;
    /** Bits of the item digest in a name. */
    public static final int DIGEST_BITS = DIGEST_CHARS * 5;
    /** Longest base name: 16 (instant) + 1 + 24 (table) + 1 + 20 (digest). */
    public static final int MAX_BASE_LENGTH = 16 + 1 + TABLE_LABEL_LENGTH + 1 + DIGEST_CHARS;
    /** Characters a restart appends: {@code -r} and 8 base32 characters. */
    public static final int RESTART_SUFFIX_LENGTH = 10;
    /** Step Functions' limit on execution names. */
    public static final int MAX_NAME_LENGTH = 80;

    private static final DateTimeFormatter INSTANT_LABEL =
            DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final byte[] NAME_DOMAIN = "punctual/execution/v1".getBytes(StandardCharsets.UTF_8);
    private static final byte[] KEY_DOMAIN = "punctual/key-digest/v1".getBytes(StandardCharsets.UTF_8);
    private static final byte[] RESTART_DOMAIN = "punctual/restart/v1".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BUCKET_DOMAIN = "punctual/bucket/v1".getBytes(StandardCharsets.UTF_8);
    private static final byte[] EVENT_DOMAIN = "punctual/expiry-event/v1".getBytes(StandardCharsets.UTF_8);
    private static final byte[] CHUNK_DOMAIN = "punctual/chunk/v1".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BACKFILL_DOMAIN = "punctual/backfill/v1".getBytes(StandardCharsets.UTF_8);
    /** Base32 characters of the table digest in a bucket name: tells apart tables whose labels are cut alike. */
    private static final int TABLE_DIGEST_CHARS = 6;

    private ExecutionNames() {
    }

    /** The name of the execution that expires {@code key} of {@code table} at {@code ttl}. */
    public static String name(String table, ItemKey key, TtlValue ttl) {
        MessageDigest sha = sha256();
        field(sha, NAME_DOMAIN);
        field(sha, table.getBytes(StandardCharsets.UTF_8));
        canonicalKey(sha, key);
        field(sha, ttl.text().getBytes(StandardCharsets.UTF_8));
        return INSTANT_LABEL.format(ttl.expireAt()) + '-' + tableLabel(table) + '-' + base32(sha.digest(), DIGEST_CHARS);
    }

    /**
     * The name to start under when {@code name} is held by a closed execution that stopped at
     * {@code holderStopDate}: the item was recreated with the same TTL after its expiry, or its TTL
     * went back to an earlier value. Derived from the holder, not from the record, so every record
     * and every backfill run that meets the same holder picks the same name.
     */
    public static String restartName(String baseName, Instant holderStopDate) {
        MessageDigest sha = sha256();
        field(sha, RESTART_DOMAIN);
        field(sha, baseName.getBytes(StandardCharsets.UTF_8));
        field(sha, ByteBuffer.allocate(12).putLong(holderStopDate.getEpochSecond()).putInt(holderStopDate.getNano()).array());
        return baseName + "-r" + base32(sha.digest(), RESTART_SUFFIX_LENGTH - 2);
    }

    /** The name of the successor a chain's execution continues as with {@code hopsLeft} hops to go. */
    public static String successorName(String chainName, long hopsLeft) {
        return chainName + "-h" + hopsLeft;
    }

    /**
     * The name of a windowed-mode bucket's execution: {@code <start>-<level>-<table>-<digest>}, e.g.
     * {@code 20261121T230500Z-minute-orders-k2x7qa}, where {@code digest} is 30 bits of the full table
     * name. The start comes first, so the console sorts buckets by when they run. At most 56
     * characters, leaving room for a one-year successor's {@code -h<hop>}.
     */
    public static String bucketName(String table, String level, Instant start) {
        MessageDigest sha = sha256();
        field(sha, BUCKET_DOMAIN);
        field(sha, table.getBytes(StandardCharsets.UTF_8));
        return INSTANT_LABEL.format(start) + '-' + level + '-' + tableLabel(table) + '-'
                + base32(sha.digest(), TABLE_DIGEST_CHARS);
    }

    /**
     * The id of a backfill run begun at {@code startedAt} by the execution {@code executionArn}:
     * {@code <start>-<digest>}, e.g. {@code 20261121T230512Z-k2x7qa}. The same execution (a retried
     * step) derives the same id; two executions beginning in the same second derive different ones.
     */
    public static String backfillRunId(Instant startedAt, String executionArn) {
        MessageDigest sha = sha256();
        field(sha, BACKFILL_DOMAIN);
        field(sha, executionArn.getBytes(StandardCharsets.UTF_8));
        return INSTANT_LABEL.format(startedAt) + '-' + base32(sha.digest(), TABLE_DIGEST_CHARS);
    }

    /**
     * The name of the execution that carries run {@code runId} on after {@code executionArn} spent its
     * share of history: {@code backfill-<table>-<run id>-<digest of the predecessor>}, at most 68
     * characters. Derived from the predecessor, so a retried start names the same successor, and a run
     * started again by hand and continued later names another.
     */
    public static String backfillSuccessorName(String table, String runId, String executionArn) {
        MessageDigest sha = sha256();
        field(sha, BACKFILL_DOMAIN);
        field(sha, runId.getBytes(StandardCharsets.UTF_8));
        field(sha, executionArn.getBytes(StandardCharsets.UTF_8));
        return "backfill-" + tableLabel(table) + '-' + runId + '-' + base32(sha.digest(), 8);
    }

    /**
     * A digest naming a chunk of index entries by its content: the table, the second and each
     * item's key and TTL text, in the order given (callers sort). The same chunk written twice, by a
     * duplicate delivery of the same batch, lands on the same index item.
     */
    public static String chunkDigest(String table, long second, List<Map.Entry<ItemKey, String>> items) {
        MessageDigest sha = sha256();
        field(sha, CHUNK_DOMAIN);
        field(sha, table.getBytes(StandardCharsets.UTF_8));
        sha.update(ByteBuffer.allocate(8).putLong(second).array());
        for (Map.Entry<ItemKey, String> item : items) {
            canonicalKey(sha, item.getKey());
            field(sha, item.getValue().getBytes(StandardCharsets.UTF_8));
        }
        return base32(sha.digest(), DIGEST_CHARS);
    }

    /**
     * The id of the {@code ItemExpired} event for the REMOVE record {@code sequenceNumber} of
     * {@code key}: 26 base32 characters (130 bits) of the table, key, TTL text and sequence number.
     * A redelivered record carries the same sequence number, so every delivery gets the same id; an
     * item recreated and expired again is another record, so another id.
     */
    public static String expiryEventId(String table, ItemKey key, String ttlText, String sequenceNumber) {
        MessageDigest sha = sha256();
        field(sha, EVENT_DOMAIN);
        field(sha, table.getBytes(StandardCharsets.UTF_8));
        canonicalKey(sha, key);
        field(sha, (ttlText == null ? "" : ttlText).getBytes(StandardCharsets.UTF_8));
        field(sha, (sequenceNumber == null ? "" : sequenceNumber).getBytes(StandardCharsets.UTF_8));
        return base32(sha.digest(), 26);
    }

    /**
     * A short digest of an item's key for log lines: 12 hex characters (48 bits), enough to find
     * one item's lines, and not the key itself. A key from a small space (say, a sequential id)
     * can still be guessed by hashing candidates; that is the price of correlating lines at all.
     */
    public static String keyDigest(String table, ItemKey key) {
        MessageDigest sha = sha256();
        field(sha, KEY_DOMAIN);
        field(sha, table.getBytes(StandardCharsets.UTF_8));
        canonicalKey(sha, key);
        byte[] digest = sha.digest();
        StringBuilder hex = new StringBuilder(12);
        for (int i = 0; i < 6; i++) {
            hex.append(HEX[(digest[i] >> 4) & 0xF]).append(HEX[digest[i] & 0xF]);
        }
        return hex.toString();
    }

    /** Whether Step Functions accepts {@code name}: 1-80 printable ASCII characters outside its reserved set. */
    public static boolean isLegal(String name) {
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= 0x20 || c >= 0x7F || "?*<>{}[]\"#%\\^|~`$&,;:/".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    static String tableLabel(String table) {
        StringBuilder label = new StringBuilder(TABLE_LABEL_LENGTH);
        for (int i = 0; i < table.length() && label.length() < TABLE_LABEL_LENGTH; i++) {
            char c = table.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '.' || c == '-';
            label.append(allowed ? c : '_');
        }
        return label.toString();
    }

    /**
     * The key as length-prefixed fields in attribute-name order: name, type tag, value bytes
     * (decoded for B). Length prefixes keep {@code ("ab","c")} and {@code ("a","bc")} apart.
     */
    private static void canonicalKey(MessageDigest sha, ItemKey key) {
        sha.update(ByteBuffer.allocate(4).putInt(key.attributes().size()).array());
        for (Map.Entry<String, AttributeText> attribute : key.attributes().entrySet()) {
            field(sha, attribute.getKey().getBytes(StandardCharsets.UTF_8));
            field(sha, attribute.getValue().type().name().getBytes(StandardCharsets.UTF_8));
            field(sha, ItemKey.valueBytes(attribute.getValue()));
        }
    }

    private static void field(MessageDigest sha, byte[] bytes) {
        sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
        sha.update(bytes);
    }

    private static String base32(byte[] bytes, int chars) {
        StringBuilder out = new StringBuilder(chars);
        int buffer = 0;
        int bits = 0;
        int index = 0;
        while (out.length() < chars) {
            if (bits < 5) {
                buffer = (buffer << 8) | (bytes[index++] & 0xFF);
                bits += 8;
            }
            out.append(BASE32[(buffer >> (bits - 5)) & 0x1F]);
            bits -= 5;
        }
        return out.toString();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }
}
