package dev.punctual.functions;

import dev.punctual.expiry.ItemKey;
import dev.punctual.windowed.ItemDeleter;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * {@link ItemDeleter} through the SDK, and the Java side's one home of Punctual's conditional delete:
 * {@code DeleteItem} with {@value #CONDITION}, the TTL attribute's name under {@value #TTL_NAME} and the
 * TTL Number's text under {@value #TTL_VALUE}. {@code expire-item.asl.json}'s {@code DeleteIfUnchanged}
 * state writes the same request in ASL (a test holds the two together), so whoever reads a delete (the
 * local runtime's meter) reads both alike. {@code ConditionalCheckFailedException} is the domain outcome
 * {@link Result#SUPERSEDED}.
 */
public final class DynamoDbItemDeleter implements ItemDeleter {

    /** The condition: the item still holds the TTL it was scheduled for. */
    public static final String CONDITION = "#ttl = :ttl";
    /** The expression attribute name the condition gives the TTL attribute. */
    public static final String TTL_NAME = "#ttl";
    /** The expression attribute value the condition compares: the TTL Number's text. */
    public static final String TTL_VALUE = ":ttl";

    private final DynamoDbClient dynamoDb;

    /** A deleter through a client the caller owns. */
    public DynamoDbItemDeleter(DynamoDbClient dynamoDb) {
        this.dynamoDb = dynamoDb;
    }

    @Override
    public Result deleteIfUnchanged(String table, ItemKey key, String ttlAttribute, String ttl) {
        try {
            dynamoDb.deleteItem(request(table, DynamoDbScheduleIndex.toAttributes(key), ttlAttribute, ttl));
            return Result.DELETED;
        } catch (ConditionalCheckFailedException e) {
            return Result.SUPERSEDED;
        }
    }

    /** The conditional delete of the item at {@code key} if its {@code ttlAttribute} still holds {@code ttl}. */
    public static DeleteItemRequest request(String table, Map<String, AttributeValue> key, String ttlAttribute, String ttl) {
        return DeleteItemRequest.builder()
                .tableName(table)
                .key(key)
                .conditionExpression(CONDITION)
                .expressionAttributeNames(Map.of(TTL_NAME, ttlAttribute))
                .expressionAttributeValues(Map.of(TTL_VALUE, AttributeValue.fromN(ttl)))
                .returnValues(ReturnValue.NONE)
                .build();
    }

    /** The TTL text {@code request} compares, when it is Punctual's conditional delete (this class's or the ASL's). */
    public static Optional<String> comparedTtl(DeleteItemRequest request) {
        if (!CONDITION.equals(request.conditionExpression()) || !request.hasExpressionAttributeValues()) {
            return Optional.empty();
        }
        AttributeValue ttl = request.expressionAttributeValues().get(TTL_VALUE);
        return ttl == null ? Optional.empty() : Optional.ofNullable(ttl.n());
    }
}
