package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.statemachine.StateMachineDefinitions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;

class DynamoDbItemDeleterTest {

    @Test
    void request_isTheConditionalDeleteOfTheExpireItemWorkflow() throws Exception {
        JsonNode parameters = new ObjectMapper().readTree(StateMachineDefinitions.expireItemTemplate())
                .path("States").path("DeleteIfUnchanged").path("Parameters");

        DeleteItemRequest request = DynamoDbItemDeleter.request("orders", Map.of("id", AttributeValue.fromS("a")),
                "expiresAt", "1767225700");

        // The ASL file writes the same delete with JSONPath values: the same condition, the TTL attribute's
        // name under the same placeholder and the TTL Number under the same value placeholder.
        assertThat(parameters.path("ConditionExpression").asText()).isEqualTo(request.conditionExpression());
        assertThat(parameters.path("ExpressionAttributeNames").fieldNames()).toIterable()
                .containsExactly(DynamoDbItemDeleter.TTL_NAME + ".$");
        assertThat(request.expressionAttributeNames()).containsOnlyKeys(DynamoDbItemDeleter.TTL_NAME)
                .containsEntry(DynamoDbItemDeleter.TTL_NAME, "expiresAt");
        assertThat(parameters.path("ExpressionAttributeValues").fieldNames()).toIterable()
                .containsExactly(DynamoDbItemDeleter.TTL_VALUE);
        assertThat(parameters.path("ExpressionAttributeValues").path(DynamoDbItemDeleter.TTL_VALUE).fieldNames()).toIterable()
                .containsExactly("N.$");
        assertThat(request.expressionAttributeValues()).containsOnlyKeys(DynamoDbItemDeleter.TTL_VALUE);
        assertThat(parameters.path("ReturnValues").asText()).isEqualTo(request.returnValuesAsString());
    }

    @Test
    void comparedTtl_readsTheTtlOfPunctualsDeletes_andNothingOfOthers() {
        DeleteItemRequest punctual = DynamoDbItemDeleter.request("orders", Map.of("id", AttributeValue.fromS("a")),
                "expiresAt", "1767225700.5");
        DeleteItemRequest application = DeleteItemRequest.builder().tableName("orders")
                .key(Map.of("id", AttributeValue.fromS("a")))
                .conditionExpression("attribute_exists(id)").build();

        assertThat(DynamoDbItemDeleter.comparedTtl(punctual)).contains("1767225700.5");
        assertThat(DynamoDbItemDeleter.comparedTtl(application)).isEmpty();
    }
}
