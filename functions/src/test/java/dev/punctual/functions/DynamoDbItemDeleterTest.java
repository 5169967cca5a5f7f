package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.windowed.ItemDeleter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * The windowed deleter's {@code DeleteItem}, recorded: it must be conditional on the TTL text the item
 * was indexed with, exactly as {@code expire-item.asl.json} deletes, or a bucket would delete an item
 * whose TTL has since moved.
 */
class DynamoDbItemDeleterTest {

    /** Records every DeleteItem; fails the condition when told to. */
    private static final class RecordingDynamoDb implements DynamoDbClient {
        final List<DeleteItemRequest> deletes = new ArrayList<>();
        boolean conditionFails;

        @Override
        public DeleteItemResponse deleteItem(DeleteItemRequest request) {
            deletes.add(request);
            if (conditionFails) {
                throw ConditionalCheckFailedException.builder().message("The conditional request failed").build();
            }
            return DeleteItemResponse.builder().build();
        }

        @Override
        public String serviceName() {
            return "dynamodb";
        }

        @Override
        public void close() {
        }
    }

    private final RecordingDynamoDb dynamoDb = new RecordingDynamoDb();
    private final DynamoDbItemDeleter deleter = new DynamoDbItemDeleter(dynamoDb);
    private final ItemKey key = ItemKey.of(Map.of("pk", AttributeText.s("order#1"), "sk", AttributeText.n("7")));

    @Test
    void deleteIfUnchanged_deletesOnlyIfTheTtlAttributeStillHoldsTheIndexedText() {
        ItemDeleter.Result result = deleter.deleteIfUnchanged("orders", key, "expires_at", "1.8E9");

        assertThat(result).isEqualTo(ItemDeleter.Result.DELETED);
        assertThat(dynamoDb.deletes).containsExactly(DeleteItemRequest.builder()
                .tableName("orders")
                .key(Map.of("pk", AttributeValue.fromS("order#1"), "sk", AttributeValue.fromN("7")))
                .conditionExpression("#ttl = :ttl")
                .expressionAttributeNames(Map.of("#ttl", "expires_at"))
                .expressionAttributeValues(Map.of(":ttl", AttributeValue.fromN("1.8E9")))
                .returnValues(ReturnValue.NONE)
                .build());
    }

    @Test
    void deleteIfUnchanged_whenTheConditionFails_isSuperseded() {
        dynamoDb.conditionFails = true;

        assertThat(deleter.deleteIfUnchanged("orders", key, "expires_at", "1800000000")).isEqualTo(ItemDeleter.Result.SUPERSEDED);
    }

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
