package dev.punctual.functions;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.Identity;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamRecord;
import dev.punctual.expiry.AttributeType;
import dev.punctual.expiry.AttributeValue;
import dev.punctual.expiry.EventName;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.StreamChange;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Converts Lambda's DynamoDB stream records into {@link StreamChange}s at the edge, keeping the key
 * as DynamoDB JSON would carry it (B as base64) and of the images only the TTL attribute.
 */
final class StreamRecords {

    private StreamRecords() {
    }

    /**
     * @throws IllegalArgumentException naming what is missing when the record is not a DynamoDB
     *     stream record this function can act on
     */
    static StreamChange toChange(DynamodbEvent.DynamodbStreamRecord record, String ttlAttribute) {
        StreamRecord dynamodb = record.getDynamodb();
        if (dynamodb == null) {
            throw new IllegalArgumentException("stream record has no dynamodb section");
        }
        if (dynamodb.getKeys() == null || dynamodb.getKeys().isEmpty()) {
            throw new IllegalArgumentException("stream record has no Keys");
        }
        EventName eventName;
        try {
            eventName = EventName.valueOf(String.valueOf(record.getEventName()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("stream record has eventName " + record.getEventName()
                    + "; expected INSERT, MODIFY or REMOVE", e);
        }
        Map<String, AttributeValue> key = new LinkedHashMap<>();
        dynamodb.getKeys().forEach((name, value) -> key.put(name, toValue(value)));
        Map<String, com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue> oldImage = dynamodb.getOldImage();
        Map<String, com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue> newImage = dynamodb.getNewImage();
        Identity identity = record.getUserIdentity();
        return new StreamChange(
                tableName(record.getEventSourceARN()),
                eventName,
                ItemKey.of(key),
                oldImage != null,
                oldImage == null || oldImage.get(ttlAttribute) == null ? null : toValue(oldImage.get(ttlAttribute)),
                newImage != null,
                newImage == null || newImage.get(ttlAttribute) == null ? null : toValue(newImage.get(ttlAttribute)),
                dynamodb.getSequenceNumber(),
                identity == null ? StreamChange.Writer.UNKNOWN : StreamChange.Writer.of(identity.getType(), identity.getPrincipalId()),
                dynamodb.getApproximateCreationDateTime() == null ? null
                        : Instant.ofEpochMilli(dynamodb.getApproximateCreationDateTime().getTime()));
    }

    /**
     * The table name inside a stream ARN such as
     * {@code arn:aws:dynamodb:us-east-1:123456789012:table/orders.v2/stream/2024-01-01T00:00:00.000}.
     */
    static String tableName(String eventSourceArn) {
        if (eventSourceArn != null) {
            int start = eventSourceArn.indexOf(":table/");
            int end = eventSourceArn.indexOf("/stream/", start + 1);
            if (start >= 0 && end > start + ":table/".length()) {
                return eventSourceArn.substring(start + ":table/".length(), end);
            }
        }
        throw new IllegalArgumentException("eventSourceARN " + eventSourceArn
                + " is not a DynamoDB stream ARN (arn:...:table/<name>/stream/<label>)");
    }

    static AttributeValue toValue(com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue value) {
        if (value.getS() != null) {
            return AttributeValue.s(value.getS());
        }
        if (value.getN() != null) {
            return AttributeValue.n(value.getN());
        }
        if (value.getB() != null) {
            return AttributeValue.b(base64(value.getB()));
        }
        if (value.getBOOL() != null) {
            return new AttributeValue(AttributeType.BOOL, value.getBOOL().toString());
        }
        if (value.getNULL() != null) {
            return new AttributeValue(AttributeType.NULL, value.getNULL().toString());
        }
        if (value.getSS() != null) {
            return AttributeValue.ofType(AttributeType.SS);
        }
        if (value.getNS() != null) {
            return AttributeValue.ofType(AttributeType.NS);
        }
        if (value.getBS() != null) {
            return AttributeValue.ofType(AttributeType.BS);
        }
        if (value.getL() != null) {
            return AttributeValue.ofType(AttributeType.L);
        }
        if (value.getM() != null) {
            return AttributeValue.ofType(AttributeType.M);
        }
        return AttributeValue.ofType(AttributeType.UNRECOGNISED);
    }

    static String base64(ByteBuffer bytes) {
        ByteBuffer view = bytes.duplicate();
        byte[] copy = new byte[view.remaining()];
        view.get(copy);
        return Base64.getEncoder().encodeToString(copy);
    }
}
