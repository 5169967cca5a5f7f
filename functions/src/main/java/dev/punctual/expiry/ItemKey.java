package dev.punctual.expiry;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An item's primary key: one or two attributes of type S, N or B, held sorted by attribute name so
 * that the same key always renders to the same DynamoDB JSON and the same digest, whichever order a
 * stream record or a Scan listed its attributes in.
 */
public record ItemKey(SortedMap<String, AttributeText> attributes) {

    /** DynamoDB's limit for a partition key value, in bytes. */
    public static final int MAX_PARTITION_KEY_BYTES = 2048;
    /** DynamoDB's limit for a sort key value, in bytes. */
    public static final int MAX_SORT_KEY_BYTES = 1024;

    public ItemKey {
        attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    }

    /** A key from attributes in any order. */
    public static ItemKey of(Map<String, AttributeText> attributes) {
        return new ItemKey(new TreeMap<>(attributes));
    }

    /** The key as DynamoDB JSON, attributes in name order, e.g. {@code {"pk":{"S":"a"},"sk":{"N":"1"}}}. */
    public String toDynamoJson() {
        StringBuilder json = new StringBuilder(64);
        appendDynamoJson(json);
        return json.toString();
    }

    /** Appends {@link #toDynamoJson} to {@code json}, for a caller building a larger document. */
    public void appendDynamoJson(StringBuilder json) {
        json.append('{');
        boolean first = true;
        for (Map.Entry<String, AttributeText> attribute : attributes.entrySet()) {
            if (!first) {
                json.append(',');
            }
            first = false;
            JsonText.appendString(json, attribute.getKey());
            json.append(":{");
            JsonText.appendString(json, attribute.getValue().type().name());
            json.append(':');
            JsonText.appendString(json, attribute.getValue().text());
            json.append('}');
        }
        json.append('}');
    }

    /**
     * What makes this key impossible in DynamoDB, if anything. Stream records come from DynamoDB, so
     * this only trips on hand-made or corrupted events; those are reported, never started.
     */
    public Optional<String> problem() {
        if (attributes.isEmpty() || attributes.size() > 2) {
            return Optional.of("a key has 1 or 2 attributes, this one has " + attributes.size());
        }
        int overSortKeyLimit = 0;
        for (Map.Entry<String, AttributeText> attribute : attributes.entrySet()) {
            AttributeText value = attribute.getValue();
            if (!value.type().isKeyType()) {
                return Optional.of("key attribute of type " + value.type() + "; keys are S, N or B");
            }
            long bytes;
            try {
                bytes = valueBytes(value).length;
            } catch (IllegalArgumentException e) {
                return Optional.of("key attribute of type B is not valid base64");
            }
            if (bytes > MAX_PARTITION_KEY_BYTES) {
                return Optional.of("key attribute of " + bytes + " bytes; DynamoDB allows at most "
                        + MAX_PARTITION_KEY_BYTES + " for a partition key and " + MAX_SORT_KEY_BYTES + " for a sort key");
            }
            if (bytes > MAX_SORT_KEY_BYTES) {
                overSortKeyLimit++;
            }
        }
        if (overSortKeyLimit > 1) {
            return Optional.of("both key attributes exceed " + MAX_SORT_KEY_BYTES
                    + " bytes; DynamoDB allows a sort key of at most " + MAX_SORT_KEY_BYTES);
        }
        return Optional.empty();
    }

    /** The bytes a value is measured and digested by: UTF-8 for S and N, the decoded bytes for B. */
    public static byte[] valueBytes(AttributeText value) {
        if (value.type() == AttributeType.B) {
            return Base64.getDecoder().decode(value.text());
        }
        return value.text() == null ? new byte[0] : value.text().getBytes(StandardCharsets.UTF_8);
    }
}
