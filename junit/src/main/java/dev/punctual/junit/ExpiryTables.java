package dev.punctual.junit;

import dev.punctual.local.runtime.LocalRuntime;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;

/**
 * Creates tables on the test's runtime set up the way Punctual needs them: a stream with both images
 * and TTL enabled on the given attribute, watched from the moment they exist.
 */
public final class ExpiryTables {

    private final LocalRuntime runtime;

    ExpiryTables(LocalRuntime runtime) {
        this.runtime = runtime;
    }

    /**
     * Creates table {@code name} with a string partition key {@code partitionKey} and TTL on
     * {@code ttlAttribute} (a Number of epoch seconds, as native TTL reads it); returns its name.
     */
    public String create(String name, String partitionKey, String ttlAttribute) {
        runtime.dynamoDb().createTable(b -> b.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(a -> a.attributeName(partitionKey).attributeType(ScalarAttributeType.S))
                .keySchema(k -> k.attributeName(partitionKey).keyType(KeyType.HASH))
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
        runtime.dynamoDb().updateTimeToLive(b -> b.tableName(name)
                .timeToLiveSpecification(t -> t.enabled(true).attributeName(ttlAttribute)));
        runtime.streamPoller().discoverTables();
        runtime.observations().deletions().track(name);
        return name;
    }
}
