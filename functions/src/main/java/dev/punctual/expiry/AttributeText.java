package dev.punctual.expiry;

import java.util.Objects;

/**
 * One DynamoDB attribute value, reduced to what expiry needs: its type, and for scalar types the
 * text DynamoDB JSON carries ({@code S}: the string, {@code N}: the number exactly as stored,
 * {@code B}: base64, {@code BOOL}/{@code NULL}: {@code true}/{@code false}). Sets, lists and maps keep
 * only their type: they can be neither keys nor TTLs.
 */
public record AttributeText(AttributeType type, String text) {

    public AttributeText {
        Objects.requireNonNull(type, "type");
        if (type == AttributeType.S || type == AttributeType.N || type == AttributeType.B) {
            Objects.requireNonNull(text, () -> "a " + type + " value needs its text");
        }
    }

    /** A String value. */
    public static AttributeText s(String value) {
        return new AttributeText(AttributeType.S, value);
    }

    /** A Number value, {@code number} exactly as DynamoDB JSON carries it. */
    public static AttributeText n(String number) {
        return new AttributeText(AttributeType.N, number);
    }

    /** A Binary value given as base64, as DynamoDB JSON carries it. */
    public static AttributeText b(String base64) {
        return new AttributeText(AttributeType.B, base64);
    }

    /** A value of a type whose content expiry never looks at (sets, lists, maps, BOOL, NULL). */
    public static AttributeText ofType(AttributeType type) {
        return new AttributeText(type, null);
    }
}
