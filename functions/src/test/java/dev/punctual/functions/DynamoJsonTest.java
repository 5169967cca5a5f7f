package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Old images in events are DynamoDB JSON, every type as the DynamoDB API writes it. */
class DynamoJsonTest {

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void image_writesEveryTypeAsDynamoDbJson() {
        Map<String, AttributeValue> image = new LinkedHashMap<>();
        image.put("s", new AttributeValue().withS("a\"b"));
        image.put("n", new AttributeValue().withN("1.50"));
        image.put("b", new AttributeValue().withB(bytes("hi")));
        image.put("bool", new AttributeValue().withBOOL(true));
        image.put("null", new AttributeValue().withNULL(true));
        image.put("ss", new AttributeValue().withSS("x", "y"));
        image.put("ns", new AttributeValue().withNS("1", "2"));
        image.put("bs", new AttributeValue().withBS(bytes("a"), bytes("b")));
        image.put("l", new AttributeValue().withL(List.of(new AttributeValue().withS("x"), new AttributeValue().withN("2"))));
        image.put("m", new AttributeValue().withM(Map.of("k", new AttributeValue().withS("v"))));

        assertThat(DynamoJson.image(image).toString()).isEqualTo("{\"s\":{\"S\":\"a\\\"b\"},\"n\":{\"N\":\"1.50\"},"
                + "\"b\":{\"B\":\"aGk=\"},\"bool\":{\"BOOL\":true},\"null\":{\"NULL\":true},\"ss\":{\"SS\":[\"x\",\"y\"]},"
                + "\"ns\":{\"NS\":[\"1\",\"2\"]},\"bs\":{\"BS\":[\"YQ==\",\"Yg==\"]},\"l\":{\"L\":[{\"S\":\"x\"},{\"N\":\"2\"}]},"
                + "\"m\":{\"M\":{\"k\":{\"S\":\"v\"}}}}");
    }
}
