package dev.punctual.functions;

import dev.punctual.expiry.ItemKey;
import dev.punctual.windowed.ItemDeleter;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * {@link ItemDeleter} through the SDK: the conditional {@code DeleteItem} of
 * {@code expire-item.asl.json}, {@code #ttl = :ttl} with the TTL Number's text as indexed.
 * {@code ConditionalCheckFailedException} is the domain outcome {@link Result#SUPERSEDED}.
 */
public final class DynamoDbItemDeleter implements ItemDeleter {

    private final DynamoDbClient dynamoDb;

    /** A deleter through a client the caller owns. */
    public DynamoDbItemDeleter(DynamoDbClient dynamoDb) {
        this.dynamoDb = dynamoDb;
    }

    @Override
    public Result deleteIfUnchanged(String table, ItemKey key, String ttlAttribute, String ttl) {
        try {
            dynamoDb.deleteItem(r -> r.tableName(table)
                    .key(DynamoDbScheduleIndex.toAttributes(key))
                    .conditionExpression("#ttl = :ttl")
                    .expressionAttributeNames(Map.of("#ttl", ttlAttribute))
                    .expressionAttributeValues(Map.of(":ttl", AttributeValue.fromN(ttl)))
                    .returnValues(ReturnValue.NONE));
            return Result.DELETED;
        } catch (ConditionalCheckFailedException e) {
            return Result.SUPERSEDED;
        }
    }
}
