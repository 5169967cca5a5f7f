package dev.punctual.expiry;

/** The DynamoDB attribute type tags, as they appear in DynamoDB JSON ({@code {"N": "1"}}). */
public enum AttributeType {
    S, N, B, BOOL, NULL, SS, NS, BS, L, M,
    /** A value with no type tag set: a malformed record, never written by DynamoDB itself. */
    UNRECOGNISED;

    /** Whether DynamoDB allows this type for a key attribute. */
    public boolean isKeyType() {
        return this == S || this == N || this == B;
    }
}
