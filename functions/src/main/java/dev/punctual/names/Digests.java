package dev.punctual.names;

import dev.punctual.expiry.ItemKey;
import java.util.List;
import java.util.Map;

/** Deterministic ids of things other than executions, made as names are, each under a domain of its own. */
public final class Digests {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Digests() {
    }

    /**
     * A digest naming a chunk of index entries by its content: the table, the second and each
     * item's key and TTL text, in the order given (callers sort). The same chunk written twice, by a
     * duplicate delivery of the same batch, lands on the same index item.
     */
    public static String chunkDigest(String table, long second, List<Map.Entry<ItemKey, String>> items) {
        NameDigest digest = NameDigest.of("punctual/chunk/v1").text(table).number(second);
        for (Map.Entry<ItemKey, String> item : items) {
            digest.key(item.getKey()).text(item.getValue());
        }
        return digest.base32(ItemExecutionName.DIGEST_CHARS);
    }

    /**
     * The id of the {@code ItemExpired} event for the REMOVE record {@code sequenceNumber} of
     * {@code key}: 26 base32 characters (130 bits) of the table, key, TTL text and sequence number.
     * A redelivered record carries the same sequence number, so every delivery gets the same id; an
     * item recreated and expired again is another record, so another id.
     */
    public static String expiryEventId(String table, ItemKey key, String ttlText, String sequenceNumber) {
        return NameDigest.of("punctual/expiry-event/v1").text(table).key(key).text(ttlText == null ? "" : ttlText)
                .text(sequenceNumber == null ? "" : sequenceNumber).base32(26);
    }

    /**
     * A short digest of an item's key for log lines: 12 hex characters (48 bits), enough to find
     * one item's lines, and not the key itself. A key from a small space (say, a sequential id)
     * can still be guessed by hashing candidates; that is the price of correlating lines at all.
     */
    public static String keyDigest(String table, ItemKey key) {
        byte[] digest = NameDigest.of("punctual/key-digest/v1").text(table).key(key).bytes();
        StringBuilder hex = new StringBuilder(12);
        for (int i = 0; i < 6; i++) {
            hex.append(HEX[(digest[i] >> 4) & 0xF]).append(HEX[digest[i] & 0xF]);
        }
        return hex.toString();
    }
}
