package dev.punctual.functions;

import dev.punctual.backfill.BackfillInputException;
import dev.punctual.backfill.TableReader;
import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.AttributeType;
import dev.punctual.expiry.ItemKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * {@link TableReader} on DynamoDB: DescribeTable and DescribeTimeToLive for the shape, and a parallel
 * Scan that projects only the key and the TTL attribute (never the rest of an item), strongly
 * consistent so that no write acknowledged before the page is missed.
 */
public final class DynamoDbTableReader implements TableReader {

    private final DynamoDbClient dynamoDb;

    public DynamoDbTableReader(DynamoDbClient dynamoDb) {
        this.dynamoDb = dynamoDb;
    }

    @Override
    public TableShape describe(String table) {
        try {
            List<String> keys = dynamoDb.describeTable(r -> r.tableName(table)).table().keySchema().stream()
                    .map(KeySchemaElement::attributeName).toList();
            TimeToLiveDescription ttl = dynamoDb.describeTimeToLive(r -> r.tableName(table)).timeToLiveDescription();
            boolean enabled = ttl != null && ttl.attributeName() != null
                    && (ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLED || ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLING);
            return new TableShape(keys, enabled ? Optional.of(ttl.attributeName()) : Optional.empty());
        } catch (ResourceNotFoundException e) {
            throw new BackfillInputException("Table " + table + " does not exist (DescribeTable: " + e.awsErrorDetails().errorMessage()
                    + "); check the name and the Region");
        }
    }

    @Override
    public ScannedPage scan(String table, int segment, int segments, List<String> keyAttributes, String ttlAttribute,
            ItemKey startAfter, int limit) {
        Map<String, String> names = new LinkedHashMap<>();
        List<String> projection = new ArrayList<>();
        for (int i = 0; i < keyAttributes.size(); i++) {
            names.put("#k" + i, keyAttributes.get(i));
            projection.add("#k" + i);
        }
        if (!keyAttributes.contains(ttlAttribute)) {
            names.put("#ttl", ttlAttribute);
            projection.add("#ttl");
        }
        ScanRequest.Builder request = ScanRequest.builder()
                .tableName(table)
                .segment(segment)
                .totalSegments(segments)
                .limit(limit)
                .consistentRead(true)
                .projectionExpression(String.join(", ", projection))
                .expressionAttributeNames(names);
        if (startAfter != null) {
            request.exclusiveStartKey(DynamoDbScheduleIndex.toAttributes(startAfter));
        }
        ScanResponse response = dynamoDb.scan(request.build());
        List<ScannedItem> items = new ArrayList<>(response.items().size());
        for (Map<String, AttributeValue> item : response.items()) {
            Map<String, AttributeText> key = new LinkedHashMap<>();
            keyAttributes.forEach(name -> key.put(name, text(item.get(name))));
            AttributeValue ttl = item.get(ttlAttribute);
            items.add(new ScannedItem(ItemKey.of(key), ttl == null ? null : text(ttl)));
        }
        boolean more = response.hasLastEvaluatedKey() && !response.lastEvaluatedKey().isEmpty();
        return new ScannedPage(items, more ? DynamoDbScheduleIndex.fromAttributes(response.lastEvaluatedKey()) : null);
    }

    /** An attribute as expiry reads it: S, N and B with their text, any other type by its type alone. */
    private static AttributeText text(AttributeValue value) {
        if (value == null) {
            return AttributeText.ofType(AttributeType.UNRECOGNISED);
        }
        if (value.s() != null) {
            return AttributeText.s(value.s());
        }
        if (value.n() != null) {
            return AttributeText.n(value.n());
        }
        if (value.b() != null) {
            return AttributeText.b(Base64.getEncoder().encodeToString(value.b().asByteArray()));
        }
        return AttributeText.ofType(switch (value.type()) {
            case BOOL -> AttributeType.BOOL;
            case NUL -> AttributeType.NULL;
            case SS -> AttributeType.SS;
            case NS -> AttributeType.NS;
            case BS -> AttributeType.BS;
            case L -> AttributeType.L;
            case M -> AttributeType.M;
            default -> AttributeType.UNRECOGNISED;
        });
    }
}
