package dev.punctual.peritem;

import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.JsonText;
import dev.punctual.expiry.TtlValue;
import dev.punctual.statemachine.Contract;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Objects;

/**
 * The input of one {@code expire-item} execution: where the item is, which TTL it was started for,
 * when to delete it and how many horizons to hop first. Never any other part of the item: images
 * may be close to 400 KB while an input may hold 256 KB.
 *
 * @param horizonHops whole {@link ExpiryWorkflow#HORIZON}s to wait before the final wait
 * @param chainName the name of the execution this input starts, which successors extend
 */
public record ExecutionInput(
        String table,
        ItemKey key,
        String ttlAttribute,
        String ttl,
        Instant expireAt,
        long horizonHops,
        String chainName) {

    public ExecutionInput {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ttlAttribute, "ttlAttribute");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(expireAt, "expireAt");
        Objects.requireNonNull(chainName, "chainName");
        if (expireAt.getNano() != 0 || expireAt.getEpochSecond() > TtlValue.LAST_RFC3339_SECOND || expireAt.getEpochSecond() < 0) {
            throw new IllegalArgumentException("expireAt must be a whole second between 1970 and 9999, got " + expireAt);
        }
        if (horizonHops < 0) {
            throw new IllegalArgumentException("horizonHops must not be negative, got " + horizonHops);
        }
    }

    /** The same input for an execution of another name (a restart). */
    public ExecutionInput withChainName(String name) {
        return new ExecutionInput(table, key, ttlAttribute, ttl, expireAt, horizonHops, name);
    }

    /**
     * The input as JSON, fields in a fixed order, e.g.
     * {@code {"contract":1,"table":"orders","key":{"id":{"S":"a"}},"ttlAttribute":"ttl","ttl":"1700000000",
     * "expireAt":"2023-11-14T22:13:20Z","horizonHops":0,"chainName":"..."}}.
     */
    public String toJson() {
        StringBuilder json = new StringBuilder(256);
        json.append('{');
        JsonText.appendString(json, Contract.FIELD);
        json.append(':').append(Contract.EXPIRE_ITEM_INPUT.version()).append(',');
        JsonText.appendString(json, ExpiryWorkflow.TABLE);
        json.append(':');
        JsonText.appendString(json, table);
        json.append(',');
        JsonText.appendString(json, ExpiryWorkflow.KEY);
        json.append(':');
        key.appendDynamoJson(json);
        json.append(',');
        JsonText.appendString(json, ExpiryWorkflow.TTL_ATTRIBUTE);
        json.append(':');
        JsonText.appendString(json, ttlAttribute);
        json.append(',');
        JsonText.appendString(json, ExpiryWorkflow.TTL);
        json.append(':');
        JsonText.appendString(json, ttl);
        json.append(',');
        JsonText.appendString(json, ExpiryWorkflow.EXPIRE_AT);
        json.append(':');
        JsonText.appendString(json, DateTimeFormatter.ISO_INSTANT.format(expireAt));
        json.append(',');
        JsonText.appendString(json, ExpiryWorkflow.HORIZON_HOPS);
        json.append(':').append(horizonHops).append(',');
        JsonText.appendString(json, ExpiryWorkflow.CHAIN_NAME);
        json.append(':');
        JsonText.appendString(json, chainName);
        json.append('}');
        return json.toString();
    }

    /** The JSON's size in UTF-8 bytes. */
    public int sizeInBytes() {
        return toJson().getBytes(StandardCharsets.UTF_8).length;
    }
}
