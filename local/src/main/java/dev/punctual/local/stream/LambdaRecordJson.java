package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.Identity;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamRecord;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamViewType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON form of a DynamoDB stream record exactly as Lambda sends it to a function: the shape filter
 * patterns are matched against and the dead-letter store keeps. {@code ApproximateCreationDateTime} is
 * epoch seconds, a number written with a fraction ({@code 1700000001.000}, which Python reads as a
 * {@code float}, as it reads AWS's), binary values are base64 strings, numbers stay strings as DynamoDB
 * sends them.
 */
public final class LambdaRecordJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private LambdaRecordJson() {
    }

    /** The record as Lambda's JSON. */
    public static ObjectNode toJson(DynamodbStreamRecord record) {
        ObjectNode json = NODES.objectNode();
        putIfPresent(json, "eventID", record.getEventID());
        putIfPresent(json, "eventName", record.getEventName());
        putIfPresent(json, "eventVersion", record.getEventVersion());
        putIfPresent(json, "eventSource", record.getEventSource());
        putIfPresent(json, "awsRegion", record.getAwsRegion());
        if (record.getDynamodb() != null) {
            json.set("dynamodb", toJson(record.getDynamodb()));
        }
        if (record.getUserIdentity() != null) {
            ObjectNode identity = json.putObject("userIdentity");
            putIfPresent(identity, "type", record.getUserIdentity().getType());
            putIfPresent(identity, "principalId", record.getUserIdentity().getPrincipalId());
        }
        putIfPresent(json, "eventSourceARN", record.getEventSourceARN());
        return json;
    }

    private static ObjectNode toJson(StreamRecord stream) {
        ObjectNode json = NODES.objectNode();
        if (stream.getApproximateCreationDateTime() != null) {
            // Always with a fraction, so that a function reads it as AWS's: LocalStack's recording test checks
            // isinstance(ApproximateCreationDateTime, float) of what AWS delivered. Stripped of trailing zeros,
            // a stamp on a whole second read as an integer (1700000001).
            json.put("ApproximateCreationDateTime",
                    BigDecimal.valueOf(stream.getApproximateCreationDateTime().getTime(), 3));
        }
        if (stream.getKeys() != null) {
            json.set("Keys", toJson(stream.getKeys()));
        }
        if (stream.getNewImage() != null) {
            json.set("NewImage", toJson(stream.getNewImage()));
        }
        if (stream.getOldImage() != null) {
            json.set("OldImage", toJson(stream.getOldImage()));
        }
        putIfPresent(json, "SequenceNumber", stream.getSequenceNumber());
        if (stream.getSizeBytes() != null) {
            json.put("SizeBytes", stream.getSizeBytes());
        }
        putIfPresent(json, "StreamViewType", stream.getStreamViewType());
        return json;
    }

    /** An item image as Lambda's JSON: attribute name to a one-entry type/value object. */
    public static ObjectNode toJson(Map<String, AttributeValue> image) {
        ObjectNode json = NODES.objectNode();
        image.forEach((name, value) -> json.set(name, toJson(value)));
        return json;
    }

    /** One attribute value as Lambda's JSON, e.g. {@code {"N":"42"}}. */
    public static ObjectNode toJson(AttributeValue value) {
        ObjectNode json = NODES.objectNode();
        if (value.getS() != null) {
            json.put("S", value.getS());
        } else if (value.getN() != null) {
            json.put("N", value.getN());
        } else if (value.getB() != null) {
            json.put("B", base64(value.getB()));
        } else if (value.getSS() != null) {
            ArrayNode set = json.putArray("SS");
            value.getSS().forEach(set::add);
        } else if (value.getNS() != null) {
            ArrayNode set = json.putArray("NS");
            value.getNS().forEach(set::add);
        } else if (value.getBS() != null) {
            ArrayNode set = json.putArray("BS");
            value.getBS().forEach(bytes -> set.add(base64(bytes)));
        } else if (value.getM() != null) {
            json.set("M", toJson(value.getM()));
        } else if (value.getL() != null) {
            ArrayNode list = json.putArray("L");
            value.getL().forEach(element -> list.add(toJson(element)));
        } else if (value.getNULL() != null) {
            json.put("NULL", value.getNULL());
        } else if (value.getBOOL() != null) {
            json.put("BOOL", value.getBOOL());
        } else {
            throw new IllegalArgumentException("attribute value has no type set");
        }
        return json;
    }

    /** Reads a record back from Lambda's JSON (the dead-letter store's records). */
    public static DynamodbStreamRecord fromJson(JsonNode json) {
        DynamodbStreamRecord record = new DynamodbStreamRecord();
        record.setEventID(text(json, "eventID"));
        record.setEventName(text(json, "eventName"));
        record.setEventVersion(text(json, "eventVersion"));
        record.setEventSource(text(json, "eventSource"));
        record.setAwsRegion(text(json, "awsRegion"));
        record.setEventSourceARN(text(json, "eventSourceARN"));
        JsonNode stream = json.get("dynamodb");
        if (stream != null) {
            record.setDynamodb(streamFromJson(stream));
        }
        JsonNode identity = json.get("userIdentity");
        if (identity != null) {
            Identity lambda = new Identity();
            lambda.setType(text(identity, "type"));
            lambda.setPrincipalId(text(identity, "principalId"));
            record.setUserIdentity(lambda);
        }
        return record;
    }

    private static StreamRecord streamFromJson(JsonNode json) {
        StreamRecord stream = new StreamRecord();
        JsonNode created = json.get("ApproximateCreationDateTime");
        if (created != null) {
            stream.setApproximateCreationDateTime(new Date(created.decimalValue().movePointRight(3).longValue()));
        }
        if (json.has("Keys")) {
            stream.setKeys(imageFromJson(json.get("Keys")));
        }
        if (json.has("NewImage")) {
            stream.setNewImage(imageFromJson(json.get("NewImage")));
        }
        if (json.has("OldImage")) {
            stream.setOldImage(imageFromJson(json.get("OldImage")));
        }
        stream.setSequenceNumber(text(json, "SequenceNumber"));
        if (json.has("SizeBytes")) {
            stream.setSizeBytes(json.get("SizeBytes").longValue());
        }
        if (json.has("StreamViewType")) {
            stream.setStreamViewType(StreamViewType.fromValue(json.get("StreamViewType").textValue()));
        }
        return stream;
    }

    /** Reads an item image from Lambda's JSON. */
    public static Map<String, AttributeValue> imageFromJson(JsonNode json) {
        Map<String, AttributeValue> image = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = json.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            image.put(field.getKey(), valueFromJson(field.getValue()));
        }
        return image;
    }

    /** Reads one attribute value from Lambda's JSON. */
    public static AttributeValue valueFromJson(JsonNode json) {
        if (json.size() != 1) {
            throw new IllegalArgumentException("an attribute value has exactly one type key, got " + json);
        }
        Map.Entry<String, JsonNode> typed = json.fields().next();
        JsonNode value = typed.getValue();
        AttributeValue lambda = new AttributeValue();
        switch (typed.getKey()) {
            case "S" -> lambda.setS(value.textValue());
            case "N" -> lambda.setN(value.textValue());
            case "B" -> lambda.setB(ByteBuffer.wrap(Base64.getDecoder().decode(value.textValue())));
            case "SS" -> lambda.setSS(texts(value));
            case "NS" -> lambda.setNS(texts(value));
            case "BS" -> lambda.setBS(texts(value).stream()
                    .map(text -> ByteBuffer.wrap(Base64.getDecoder().decode(text))).toList());
            case "M" -> lambda.setM(imageFromJson(value));
            case "L" -> {
                List<AttributeValue> list = new ArrayList<>();
                value.forEach(element -> list.add(valueFromJson(element)));
                lambda.setL(list);
            }
            case "NULL" -> lambda.setNULL(value.booleanValue());
            case "BOOL" -> lambda.setBOOL(value.booleanValue());
            default -> throw new IllegalArgumentException("unknown attribute type '" + typed.getKey() + "' in " + json);
        }
        return lambda;
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>(array.size());
        array.forEach(element -> texts.add(element.textValue()));
        return texts;
    }

    private static String base64(ByteBuffer bytes) {
        ByteBuffer view = bytes.duplicate();
        byte[] copy = new byte[view.remaining()];
        view.get(copy);
        return Base64.getEncoder().encodeToString(copy);
    }

    private static String text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static void putIfPresent(ObjectNode json, String field, String value) {
        if (value != null) {
            json.put(field, value);
        }
    }
}
