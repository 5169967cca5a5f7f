package dev.punctual.names;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;

/**
 * A SHA-256 over length-prefixed fields, begun with a domain of its own so that two kinds of name
 * never digest the same bytes. Length prefixes keep {@code ("ab","c")} and {@code ("a","bc")} apart.
 */
final class NameDigest {

    private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();

    private final MessageDigest sha;

    private NameDigest(String domain) {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
        text(domain);
    }

    /** A digest of the kind {@code domain} names, e.g. {@code punctual/execution/v1}. */
    static NameDigest of(String domain) {
        return new NameDigest(domain);
    }

    /** The text's UTF-8 bytes, length-prefixed. */
    NameDigest text(String text) {
        return field(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The bytes, length-prefixed. */
    NameDigest field(byte[] bytes) {
        sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
        sha.update(bytes);
        return this;
    }

    /** The number's eight bytes, with no prefix: a field of fixed length. */
    NameDigest number(long value) {
        sha.update(ByteBuffer.allocate(8).putLong(value).array());
        return this;
    }

    /**
     * The key as its attribute count, then per attribute in name order the name, the type tag and
     * the value's bytes (decoded for B), each length-prefixed.
     */
    NameDigest key(ItemKey key) {
        sha.update(ByteBuffer.allocate(4).putInt(key.attributes().size()).array());
        for (Map.Entry<String, AttributeText> attribute : key.attributes().entrySet()) {
            text(attribute.getKey());
            text(attribute.getValue().type().name());
            field(ItemKey.valueBytes(attribute.getValue()));
        }
        return this;
    }

    /** The digest's first {@code chars * 5} bits as base32 characters; ends the digest. */
    String base32(int chars) {
        byte[] bytes = sha.digest();
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

    /** The digest's bytes; ends the digest. */
    byte[] bytes() {
        return sha.digest();
    }
}
