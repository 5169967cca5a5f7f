package dev.punctual.local.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.statemachine.StreamWiring;
import org.junit.jupiter.api.Test;

class EventPatternTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static boolean matches(String pattern, String event) throws Exception {
        return EventPattern.parse(pattern).matches(JSON.readTree(event));
    }

    @Test
    void exactValue_matchesEqualStringsOnly() throws Exception {
        assertThat(matches("{\"eventName\":[\"INSERT\"]}", "{\"eventName\":\"INSERT\"}")).isTrue();
        assertThat(matches("{\"eventName\":[\"INSERT\"]}", "{\"eventName\":\"MODIFY\"}")).isFalse();
        assertThat(matches("{\"eventName\":[\"INSERT\"]}", "{}")).isFalse();
    }

    @Test
    void exactValue_comparesNumbersNumericallyAndBooleansAndNull() throws Exception {
        assertThat(matches("{\"n\":[5]}", "{\"n\":5.0}")).isTrue();
        assertThat(matches("{\"n\":[5]}", "{\"n\":\"5\"}")).isFalse();
        assertThat(matches("{\"b\":[true]}", "{\"b\":true}")).isTrue();
        assertThat(matches("{\"b\":[true]}", "{\"b\":false}")).isFalse();
        assertThat(matches("{\"x\":[null]}", "{\"x\":null}")).isTrue();
        assertThat(matches("{\"x\":[null]}", "{}")).isFalse();
    }

    @Test
    void array_isOr() throws Exception {
        String pattern = "{\"eventName\":[\"INSERT\",\"MODIFY\"]}";
        assertThat(matches(pattern, "{\"eventName\":\"INSERT\"}")).isTrue();
        assertThat(matches(pattern, "{\"eventName\":\"MODIFY\"}")).isTrue();
        assertThat(matches(pattern, "{\"eventName\":\"REMOVE\"}")).isFalse();
    }

    @Test
    void nestedObjectsAndSiblingFields_areAnd() throws Exception {
        String pattern = "{\"eventName\":[\"INSERT\"],\"dynamodb\":{\"Keys\":{\"id\":{\"S\":[\"a\"]}}}}";
        assertThat(matches(pattern, "{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{\"id\":{\"S\":\"a\"}}}}")).isTrue();
        assertThat(matches(pattern, "{\"eventName\":\"MODIFY\",\"dynamodb\":{\"Keys\":{\"id\":{\"S\":\"a\"}}}}")).isFalse();
        assertThat(matches(pattern, "{\"eventName\":\"INSERT\",\"dynamodb\":{\"Keys\":{\"id\":{\"S\":\"b\"}}}}")).isFalse();
    }

    @Test
    void recordArrays_matchWhenAnyElementMatches() throws Exception {
        assertThat(matches("{\"SS\":[\"b\"]}", "{\"SS\":[\"a\",\"b\"]}")).isTrue();
        assertThat(matches("{\"SS\":[\"c\"]}", "{\"SS\":[\"a\",\"b\"]}")).isFalse();
    }

    @Test
    void exists_trueNeedsALeaf_falseNeedsItAbsentEvenWithoutParents() throws Exception {
        String present = "{\"dynamodb\":{\"NewImage\":{\"ttl\":{\"N\":[{\"exists\":true}]}}}}";
        String absent = "{\"dynamodb\":{\"NewImage\":{\"ttl\":{\"N\":[{\"exists\":false}]}}}}";
        String withTtl = "{\"dynamodb\":{\"NewImage\":{\"ttl\":{\"N\":\"1700000000\"}}}}";
        String stringTtl = "{\"dynamodb\":{\"NewImage\":{\"ttl\":{\"S\":\"soon\"}}}}";
        String noImage = "{\"dynamodb\":{\"Keys\":{}}}";

        assertThat(matches(present, withTtl)).isTrue();
        assertThat(matches(present, stringTtl)).isFalse();
        assertThat(matches(present, noImage)).isFalse();
        assertThat(matches(absent, withTtl)).isFalse();
        assertThat(matches(absent, stringTtl)).isTrue();
        assertThat(matches(absent, noImage)).isTrue();
        assertThat(matches("{\"dynamodb\":{\"NewImage\":[{\"exists\":true}]}}", withTtl)).isFalse();
    }

    @Test
    void prefix_matchesStringStarts() throws Exception {
        assertThat(matches("{\"id\":[{\"prefix\":\"ord\"}]}", "{\"id\":\"order-1\"}")).isTrue();
        assertThat(matches("{\"id\":[{\"prefix\":\"ord\"}]}", "{\"id\":\"cart-1\"}")).isFalse();
        assertThat(matches("{\"id\":[{\"prefix\":{\"equals-ignore-case\":\"ORD\"}}]}", "{\"id\":\"order-1\"}")).isTrue();
        assertThat(matches("{\"id\":[{\"suffix\":\"-1\"}]}", "{\"id\":\"order-1\"}")).isTrue();
        assertThat(matches("{\"id\":[{\"equals-ignore-case\":\"ORDER-1\"}]}", "{\"id\":\"order-1\"}")).isTrue();
    }

    @Test
    void anythingBut_excludesValuesListsAndPrefixes_andNeedsTheField() throws Exception {
        assertThat(matches("{\"e\":[{\"anything-but\":\"REMOVE\"}]}", "{\"e\":\"INSERT\"}")).isTrue();
        assertThat(matches("{\"e\":[{\"anything-but\":\"REMOVE\"}]}", "{\"e\":\"REMOVE\"}")).isFalse();
        assertThat(matches("{\"e\":[{\"anything-but\":[\"REMOVE\",\"MODIFY\"]}]}", "{\"e\":\"MODIFY\"}")).isFalse();
        assertThat(matches("{\"e\":[{\"anything-but\":[\"REMOVE\",\"MODIFY\"]}]}", "{\"e\":\"INSERT\"}")).isTrue();
        assertThat(matches("{\"e\":[{\"anything-but\":{\"prefix\":\"RE\"}}]}", "{\"e\":\"REMOVE\"}")).isFalse();
        assertThat(matches("{\"e\":[{\"anything-but\":{\"prefix\":\"RE\"}}]}", "{\"e\":\"INSERT\"}")).isTrue();
        assertThat(matches("{\"e\":[{\"anything-but\":\"REMOVE\"}]}", "{}")).isFalse();
        assertThat(matches("{\"n\":[{\"anything-but\":[1,2]}]}", "{\"n\":2.0}")).isFalse();
    }

    @Test
    void numeric_matchesRangesOfJsonNumbersOnly() throws Exception {
        String range = "{\"size\":[{\"numeric\":[\">\",0,\"<=\",5]}]}";
        assertThat(matches(range, "{\"size\":5}")).isTrue();
        assertThat(matches(range, "{\"size\":0.5}")).isTrue();
        assertThat(matches(range, "{\"size\":0}")).isFalse();
        assertThat(matches(range, "{\"size\":6}")).isFalse();
        assertThat(matches(range, "{\"size\":\"3\"}")).isFalse();
        assertThat(matches("{\"size\":[{\"numeric\":[\"=\",3]}]}", "{\"size\":3.00}")).isTrue();
        assertThat(matches("{\"size\":[{\"numeric\":[\">=\",3]}]}", "{\"size\":2.99}")).isFalse();
        assertThat(matches("{\"size\":[{\"numeric\":[\"<\",3]}]}", "{\"size\":2.99}")).isTrue();
    }

    @Test
    void parse_refusesMalformedAndUnsupportedPatterns() {
        assertThatThrownBy(() -> EventPattern.parse("{\"a\":\"x\"}")).hasMessageContaining("arrays or objects");
        assertThatThrownBy(() -> EventPattern.parse("[1]")).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> EventPattern.parse("{\"a\":[]}")).hasMessageContaining("no values");
        assertThatThrownBy(() -> EventPattern.parse("{\"a\":[{\"wildcard\":\"*x\"}]}"))
                .hasMessageContaining("'wildcard' is not supported");
        assertThatThrownBy(() -> EventPattern.parse("{\"a\":[{\"numeric\":[\"~\",1]}]}")).hasMessageContaining("numeric");
        assertThatThrownBy(() -> EventPattern.parse("{\"a\":[{\"exists\":\"yes\"}]}")).hasMessageContaining("exists");
        assertThatThrownBy(() -> EventPattern.parse("not json")).hasMessageContaining("not valid JSON");
    }

    @Test
    void streamWiringPatterns_passNumberAndStringTtlsAndOldNumberTtls() throws Exception {
        FilterCriteria criteria = FilterCriteria.of(StreamWiring.filterPatterns("expiresAt", true));
        FilterCriteria noCancel = FilterCriteria.of(StreamWiring.filterPatterns("expiresAt", false));
        JsonNode insertWithTtl = JSON.readTree("{\"eventName\":\"INSERT\",\"dynamodb\":{\"NewImage\":{\"expiresAt\":{\"N\":\"1\"}}}}");
        JsonNode insertStringTtl = JSON.readTree("{\"eventName\":\"INSERT\",\"dynamodb\":{\"NewImage\":{\"expiresAt\":{\"S\":\"x\"}}}}");
        JsonNode insertWithoutTtl = JSON.readTree("{\"eventName\":\"INSERT\",\"dynamodb\":{\"NewImage\":{\"id\":{\"S\":\"a\"}}}}");
        JsonNode removeWithTtl = JSON.readTree("{\"eventName\":\"REMOVE\",\"dynamodb\":{\"OldImage\":{\"expiresAt\":{\"N\":\"1\"}}}}");

        assertThat(criteria.matches(insertWithTtl)).isTrue();
        assertThat(criteria.matches(insertStringTtl)).isTrue();
        assertThat(criteria.matches(insertWithoutTtl)).isFalse();
        assertThat(criteria.matches(removeWithTtl)).isTrue();
        assertThat(noCancel.matches(removeWithTtl)).isFalse();
        assertThat(FilterCriteria.none().matches(insertWithoutTtl)).isTrue();
    }

    @Test
    void streamWiringPatterns_passTheRemovesExpiryEventsAreMadeFrom() throws Exception {
        FilterCriteria criteria = FilterCriteria.of(StreamWiring.filterPatterns("expiresAt", true));
        JsonNode nativeTtlRemove = JSON.readTree("{\"eventName\":\"REMOVE\",\"userIdentity\":{\"type\":\"Service\","
                + "\"principalId\":\"dynamodb.amazonaws.com\"},\"dynamodb\":{\"Keys\":{\"id\":{\"S\":\"a\"}},"
                + "\"OldImage\":{\"id\":{\"S\":\"a\"},\"expiresAt\":{\"N\":\"1767225500\"}}}}");
        JsonNode ownRemove = JSON.readTree("{\"eventName\":\"REMOVE\",\"dynamodb\":{\"Keys\":{\"id\":{\"S\":\"a\"}},"
                + "\"OldImage\":{\"id\":{\"S\":\"a\"},\"expiresAt\":{\"N\":\"1767225500.5\"}}}}");
        JsonNode removeWithoutTtl = JSON.readTree("{\"eventName\":\"REMOVE\",\"dynamodb\":{\"Keys\":{\"id\":{\"S\":\"a\"}},"
                + "\"OldImage\":{\"id\":{\"S\":\"a\"}}}}");

        assertThat(criteria.matches(nativeTtlRemove)).isTrue();
        assertThat(criteria.matches(ownRemove)).isTrue();
        assertThat(criteria.matches(removeWithoutTtl)).as("never an expiry, so no need to pass it").isFalse();
    }
}
