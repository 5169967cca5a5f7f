package dev.punctual.functions;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.events.EventEntry;
import dev.punctual.events.EventPublisher;
import dev.punctual.expiry.Expiry;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.StreamChange;
import dev.punctual.names.Digests;
import dev.punctual.statemachine.Contract;
import dev.punctual.statemachine.ExpiryEvents;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handler's last step: an {@code ItemExpired} event for every REMOVE record of the batch that
 * shows an expiry ({@link ExpiryRules#expiry}), published through {@link EventPublisher}. A record
 * whose event was not accepted is reported for retry, and so are the later records of the same item
 * in the batch, so that the mapping's retry never lets them overtake it.
 */
final class ItemExpiredEvents {

    /** Events off: nothing is built or sent. */
    static final ItemExpiredEvents OFF = new ItemExpiredEvents(null, null, false);

    private static final Logger LOG = LoggerFactory.getLogger(ExpiryStreamHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ExpiryRules rules;
    private final EventPublisher publisher;
    private final boolean includeOldImage;

    /**
     * @param rules the rules that tell an expiry from another delete
     * @param publisher where the events go
     * @param includeOldImage whether each event carries the item's old image
     */
    ItemExpiredEvents(ExpiryRules rules, EventPublisher publisher, boolean includeOldImage) {
        this.rules = rules;
        this.publisher = publisher;
        this.includeOldImage = includeOldImage;
    }

    /** A record the handler could read, with the change it read from it. */
    record Read(DynamodbEvent.DynamodbStreamRecord record, StreamChange change) {
    }

    /**
     * Publishes the events of {@code read} records that did not fail, as seen at {@code now}.
     *
     * @param failed sequence numbers already reported for retry: their events wait for the retry
     * @return sequence numbers to report for retry as well
     */
    Set<String> publish(List<Read> read, Set<String> failed, Instant now) {
        if (publisher == null) {
            return Set.of();
        }
        List<EventEntry> entries = new ArrayList<>();
        Map<String, Read> bySequenceNumber = new HashMap<>();
        for (Read one : read) {
            if (failed.contains(one.change().sequenceNumber())) {
                continue;
            }
            Optional<Expiry> expiry = rules.expiry(one.change(), now);
            if (expiry.isPresent()) {
                entries.add(toEntry(expiry.get(), one.record()));
                bySequenceNumber.put(one.change().sequenceNumber(), one);
            }
        }
        if (entries.isEmpty()) {
            return Set.of();
        }
        EventPublisher.Outcome outcome = publisher.publish(entries);
        Set<String> retry = new LinkedHashSet<>();
        for (Map.Entry<String, String> unpublished : outcome.unpublished().entrySet()) {
            StreamChange change = bySequenceNumber.get(unpublished.getKey()).change();
            LOG.warn("ItemExpired event not accepted by EventBridge after " + EventPublisher.MAX_ATTEMPTS
                            + " tries; the record is reported for retry",
                    entry("table", change.table()),
                    entry("keyDigest", Digests.keyDigest(change.table(), change.key())),
                    entry("outcome", "failed"),
                    entry("sequenceNumber", change.sequenceNumber()),
                    entry("failure", String.valueOf(unpublished.getValue())));
            retry.add(change.sequenceNumber());
            retry.addAll(laterRecordsOf(read, change));
        }
        return retry;
    }

    private static List<String> laterRecordsOf(List<Read> read, StreamChange failed) {
        List<String> later = new ArrayList<>();
        boolean after = false;
        for (Read one : read) {
            StreamChange change = one.change();
            if (change == failed) {
                after = true;
            } else if (after && change.table().equals(failed.table()) && change.key().equals(failed.key())) {
                later.add(change.sequenceNumber());
            }
        }
        return later;
    }

    /** The entry for {@code expiry}: the old image only if asked for and the entry stays within the limit. */
    EventEntry toEntry(Expiry expiry, DynamodbEvent.DynamodbStreamRecord record) {
        List<String> resources = tableArn(record.getEventSourceARN()).map(List::of).orElse(List.of());
        ObjectNode detail = detail(expiry, rules.ttlAttribute());
        Map<String, com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue> image =
                record.getDynamodb() == null ? null : record.getDynamodb().getOldImage();
        if (includeOldImage && image != null) {
            ObjectNode withImage = detail.deepCopy();
            withImage.set(ExpiryEvents.OLD_IMAGE, DynamoJson.image(image));
            String text = write(withImage);
            if (EventEntry.sizeInBytes(text, resources) <= ExpiryEvents.MAX_ENTRY_BYTES) {
                return new EventEntry(sequenceNumber(record), expiry.deletedAt(), text, resources);
            }
            detail.put(ExpiryEvents.OLD_IMAGE_OMITTED, ExpiryEvents.OMITTED_FOR_SIZE);
        }
        return new EventEntry(sequenceNumber(record), expiry.deletedAt(), write(detail), resources);
    }

    static ObjectNode detail(Expiry expiry, String ttlAttribute) {
        ObjectNode detail = JSON.createObjectNode();
        detail.put(Contract.FIELD, Contract.ITEM_EXPIRED.version());
        detail.put(ExpiryEvents.ID, expiry.id());
        detail.put(ExpiryEvents.TABLE, expiry.table());
        detail.set(ExpiryEvents.KEY, keyJson(expiry.key()));
        detail.put(ExpiryEvents.TTL_ATTRIBUTE, ttlAttribute);
        if (expiry.ttl() != null) {
            detail.put(ExpiryEvents.TTL, expiry.ttl());
        }
        detail.put(ExpiryEvents.EXPIRED_BY, expiry.expiredBy().label());
        detail.put(ExpiryEvents.DELETED_AT, expiry.deletedAt().truncatedTo(ChronoUnit.MILLIS).toString());
        expiry.lagMillis().ifPresent(lag -> detail.put(ExpiryEvents.LAG_MS, lag));
        return detail;
    }

    private static com.fasterxml.jackson.databind.JsonNode keyJson(ItemKey key) {
        try {
            return JSON.readTree(key.toDynamoJson());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("ItemKey.toDynamoJson wrote JSON that does not parse", e);
        }
    }

    private static String write(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }

    /** {@code arn:aws:dynamodb:…:table/orders} from the stream ARN {@code arn:aws:dynamodb:…:table/orders/stream/…}. */
    static Optional<String> tableArn(String streamArn) {
        if (streamArn == null) {
            return Optional.empty();
        }
        int stream = streamArn.indexOf("/stream/");
        return stream > 0 ? Optional.of(streamArn.substring(0, stream)) : Optional.empty();
    }

    private static String sequenceNumber(DynamodbEvent.DynamodbStreamRecord record) {
        return record.getDynamodb() == null || record.getDynamodb().getSequenceNumber() == null
                ? "" : record.getDynamodb().getSequenceNumber();
    }
}
