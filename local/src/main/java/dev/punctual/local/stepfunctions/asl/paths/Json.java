package dev.punctual.local.stepfunctions.asl.paths;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import java.nio.charset.StandardCharsets;

/** The one Jackson setup the interpreter reads and writes JSON with. */
public final class Json {

    /** Decimal numbers stay {@code BigDecimal} so values pass through untouched. */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);

    private Json() {
    }

    /** Compact JSON text, as Step Functions shows payloads. */
    public static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A JSON tree could not be written: " + e.getOriginalMessage(), e);
        }
    }

    /** Parses JSON text; {@link IllegalArgumentException} with the parser's reason when it is not JSON. */
    public static JsonNode parse(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Size in bytes of the node's compact UTF-8 JSON text, the measure of the payload quota. */
    public static int utf8Size(JsonNode node) {
        return write(node).getBytes(StandardCharsets.UTF_8).length;
    }
}
