package com.example.sessions;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Sessions in a DynamoDB table whose TTL attribute {@code expiresAt} Punctual honours to the second:
 * a session is gone 30 minutes after it was opened, or after it was last extended.
 */
public final class SessionStore {

    public static final String KEY = "sessionId";
    public static final String TTL = "expiresAt";
    public static final Duration LIFETIME = Duration.ofMinutes(30);

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final Clock clock;

    /** @param clock the application's clock: in tests, the one Punctual's time runs on */
    public SessionStore(DynamoDbClient dynamoDb, String table, Clock clock) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.clock = clock;
    }

    /** Opens a session for {@code user}, ending {@link #LIFETIME} from now; returns its id. */
    public String open(String user) {
        String id = UUID.randomUUID().toString();
        dynamoDb.putItem(b -> b.tableName(table).item(Map.of(
                KEY, AttributeValue.fromS(id),
                "user", AttributeValue.fromS(user),
                TTL, AttributeValue.fromN(Long.toString(endFromNow(LIFETIME).getEpochSecond())))));
        return id;
    }

    /** Keeps session {@code id} open for {@code lifetime} from now (a "remember me" session, say). */
    public void extend(String id, Duration lifetime) {
        dynamoDb.updateItem(b -> b.tableName(table).key(Map.of(KEY, AttributeValue.fromS(id)))
                .updateExpression("SET #ttl = :ttl")
                .conditionExpression("attribute_exists(#key)")
                .expressionAttributeNames(Map.of("#ttl", TTL, "#key", KEY))
                .expressionAttributeValues(Map.of(":ttl",
                        AttributeValue.fromN(Long.toString(endFromNow(lifetime).getEpochSecond())))));
    }

    /** Whether session {@code id} is still open. */
    public boolean isOpen(String id) {
        return dynamoDb.getItem(b -> b.tableName(table).key(Map.of(KEY, AttributeValue.fromS(id))).consistentRead(true))
                .hasItem();
    }

    /** When a session opened or extended now for {@code lifetime} ends: whole seconds, as native TTL reads them. */
    private Instant endFromNow(Duration lifetime) {
        return Instant.ofEpochSecond(clock.instant().plus(lifetime).getEpochSecond());
    }
}
