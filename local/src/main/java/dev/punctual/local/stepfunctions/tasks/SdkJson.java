package dev.punctual.local.stepfunctions.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.protocol.MarshallingKnownType;
import software.amazon.awssdk.core.traits.ListTrait;
import software.amazon.awssdk.core.traits.MapTrait;
import software.amazon.awssdk.core.util.SdkAutoConstructList;
import software.amazon.awssdk.core.util.SdkAutoConstructMap;
import software.amazon.awssdk.utils.builder.SdkBuilder;

/**
 * Converts between Step Functions' PascalCase JSON (the service's wire names, DynamoDB JSON values)
 * and SDK v2 request/response objects, driven by the SDK's own field metadata ({@link SdkField}), so
 * every member of every DynamoDB operation maps without hand-written code per field.
 */
final class SdkJson {

    private SdkJson() {
    }

    /**
     * Sets every field of {@code json} on an SDK builder.
     *
     * @throws IllegalArgumentException naming the field that is unknown or of the wrong type
     */
    static void fill(SdkPojo builder, JsonNode json, String where) {
        if (!json.isObject()) {
            throw new IllegalArgumentException(where + " must be a JSON object, got " + Json.write(json));
        }
        Map<String, SdkField<?>> fields = new LinkedHashMap<>();
        for (SdkField<?> field : builder.sdkFields()) {
            fields.put(field.locationName(), field);
        }
        for (Map.Entry<String, JsonNode> entry : json.properties()) {
            SdkField<?> field = fields.get(entry.getKey());
            String path = where.isEmpty() ? entry.getKey() : where + "." + entry.getKey();
            if (field == null) {
                throw new IllegalArgumentException("The field '" + path + "' is not supported; expected one of "
                        + fields.keySet());
            }
            if (!entry.getValue().isNull()) {
                field.set(builder, fromJson(field, entry.getValue(), path));
            }
        }
    }

    private static Object fromJson(SdkField<?> field, JsonNode value, String path) {
        MarshallingKnownType type = field.marshallingType().getKnownType();
        switch (type) {
            case STRING:
                if (!value.isTextual()) {
                    throw wrongType(path, "a string", value);
                }
                return value.textValue();
            case INTEGER:
            case LONG:
            case SHORT:
            case BYTE:
                if (!value.canConvertToExactIntegral()) {
                    throw wrongType(path, "an integer", value);
                }
                return type == MarshallingKnownType.INTEGER ? Integer.valueOf(value.intValue())
                        : type == MarshallingKnownType.LONG ? Long.valueOf(value.longValue())
                        : type == MarshallingKnownType.SHORT ? Short.valueOf(value.shortValue())
                        : Byte.valueOf((byte) value.intValue());
            case FLOAT:
            case DOUBLE:
            case BIG_DECIMAL:
                if (!value.isNumber()) {
                    throw wrongType(path, "a number", value);
                }
                return type == MarshallingKnownType.FLOAT ? Float.valueOf(value.floatValue())
                        : type == MarshallingKnownType.DOUBLE ? Double.valueOf(value.doubleValue()) : value.decimalValue();
            case BOOLEAN:
                if (!value.isBoolean()) {
                    throw wrongType(path, "a boolean", value);
                }
                return value.booleanValue();
            case INSTANT:
                if (!value.isNumber()) {
                    throw wrongType(path, "epoch seconds", value);
                }
                BigDecimal seconds = value.decimalValue();
                return Instant.ofEpochSecond(seconds.longValue(),
                        seconds.remainder(BigDecimal.ONE).movePointRight(9).intValue());
            case SDK_BYTES:
                if (!value.isTextual()) {
                    throw wrongType(path, "a Base64 string", value);
                }
                try {
                    return SdkBytes.fromByteArray(Base64.getDecoder().decode(value.textValue()));
                } catch (IllegalArgumentException e) {
                    throw wrongType(path, "a Base64 string", value);
                }
            case SDK_POJO:
                SdkPojo nested = field.constructor().get();
                fill(nested, value, path);
                return ((SdkBuilder<?, ?>) nested).build();
            case LIST:
                if (!value.isArray()) {
                    throw wrongType(path, "an array", value);
                }
                SdkField<?> member = field.getRequiredTrait(ListTrait.class).memberFieldInfo();
                List<Object> list = new ArrayList<>();
                for (int i = 0; i < value.size(); i++) {
                    list.add(fromJson(member, value.get(i), path + "[" + i + "]"));
                }
                return list;
            case MAP:
                if (!value.isObject()) {
                    throw wrongType(path, "an object", value);
                }
                SdkField<?> valueField = field.getRequiredTrait(MapTrait.class).valueFieldInfo();
                Map<String, Object> map = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> entry : value.properties()) {
                    map.put(entry.getKey(), fromJson(valueField, entry.getValue(), path + "." + entry.getKey()));
                }
                return map;
            default:
                throw new IllegalArgumentException("The field '" + path + "' has a type (" + type
                        + ") this runtime cannot pass to the SDK");
        }
    }

    private static IllegalArgumentException wrongType(String path, String expected, JsonNode value) {
        return new IllegalArgumentException("The field '" + path + "' must be " + expected + ", got " + Json.write(value));
    }

    /** The JSON Step Functions shows for an SDK object: wire names, only the members that are set. */
    static ObjectNode toJson(SdkPojo pojo) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        for (SdkField<?> field : pojo.sdkFields()) {
            Object value = field.getValueOrDefault(pojo);
            JsonNode json = toJson(field, value);
            if (json != null) {
                out.set(field.locationName(), json);
            }
        }
        return out;
    }

    private static JsonNode toJson(SdkField<?> field, Object value) {
        if (value == null || value instanceof SdkAutoConstructList || value instanceof SdkAutoConstructMap) {
            return null;
        }
        if (value instanceof SdkPojo pojo) {
            return toJson(pojo);
        }
        if (value instanceof SdkBytes bytes) {
            return Json.MAPPER.getNodeFactory().textNode(Base64.getEncoder().encodeToString(bytes.asByteArray()));
        }
        if (value instanceof Instant instant) {
            return Json.MAPPER.getNodeFactory().numberNode(BigDecimal.valueOf(instant.getEpochSecond())
                    .add(BigDecimal.valueOf(instant.getNano(), 9)).stripTrailingZeros());
        }
        if (value instanceof List<?> list) {
            SdkField<?> member = field.getRequiredTrait(ListTrait.class).memberFieldInfo();
            ArrayNode array = Json.MAPPER.createArrayNode();
            for (Object element : list) {
                JsonNode json = toJson(member, element);
                array.add(json == null ? Json.MAPPER.nullNode() : json);
            }
            return array;
        }
        if (value instanceof Map<?, ?> map) {
            SdkField<?> valueField = field.getRequiredTrait(MapTrait.class).valueFieldInfo();
            ObjectNode object = Json.MAPPER.createObjectNode();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                JsonNode json = toJson(valueField, entry.getValue());
                object.set(String.valueOf(entry.getKey()), json == null ? Json.MAPPER.nullNode() : json);
            }
            return object;
        }
        return Json.MAPPER.valueToTree(value);
    }
}
