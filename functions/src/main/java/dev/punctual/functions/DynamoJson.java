package dev.punctual.functions;

import com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/** Lambda's stream-record attribute values as DynamoDB JSON ({@code {"S":"a"}}, B as base64), for event details. */
final class DynamoJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private DynamoJson() {
    }

    /** An item image: attribute names to typed values. */
    static ObjectNode image(Map<String, AttributeValue> image) {
        ObjectNode node = NODES.objectNode();
        image.forEach((name, value) -> node.set(name, value(value)));
        return node;
    }

    static ObjectNode value(AttributeValue value) {
        ObjectNode node = NODES.objectNode();
        if (value.getS() != null) {
            node.put("S", value.getS());
        } else if (value.getN() != null) {
            node.put("N", value.getN());
        } else if (value.getB() != null) {
            node.put("B", base64(value.getB()));
        } else if (value.getBOOL() != null) {
            node.put("BOOL", value.getBOOL());
        } else if (value.getNULL() != null) {
            node.put("NULL", value.getNULL());
        } else if (value.getSS() != null) {
            node.set("SS", strings(value.getSS()));
        } else if (value.getNS() != null) {
            node.set("NS", strings(value.getNS()));
        } else if (value.getBS() != null) {
            ArrayNode array = node.putArray("BS");
            value.getBS().forEach(bytes -> array.add(base64(bytes)));
        } else if (value.getL() != null) {
            ArrayNode array = node.putArray("L");
            value.getL().forEach(element -> array.add(value(element)));
        } else if (value.getM() != null) {
            node.set("M", image(value.getM()));
        }
        return node;
    }

    private static ArrayNode strings(List<String> values) {
        ArrayNode array = NODES.arrayNode();
        values.forEach(array::add);
        return array;
    }

    private static String base64(ByteBuffer bytes) {
        return StreamRecords.base64(bytes);
    }
}
