package dev.punctual.junit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.events.EventStore;
import dev.punctual.statemachine.ExpiryEvents;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@code ItemExpired} events the test's runtime has published so far, oldest first. */
public final class ExpiredItems {

    private final EventStore events;

    ExpiredItems(EventStore events) {
        this.events = events;
    }

    /** Every expiry event so far. */
    public List<ItemExpired> all() {
        return events.all().stream().map(EventStore.StoredEvent::event)
                .filter(event -> ExpiryEvents.SOURCE.equals(event.path("source").asText()))
                .map(event -> read(event.path("detail"))).toList();
    }

    /** The expiry events of one table so far. */
    public List<ItemExpired> of(String table) {
        return all().stream().filter(event -> event.table().equals(table)).toList();
    }

    private static ItemExpired read(JsonNode detail) {
        Map<String, String> key = new LinkedHashMap<>();
        detail.path(ExpiryEvents.KEY).fields().forEachRemaining(field -> {
            JsonNode typed = field.getValue();
            String type = typed.fieldNames().hasNext() ? typed.fieldNames().next() : "";
            key.put(field.getKey(), typed.path(type).asText());
        });
        JsonNode lag = detail.path(ExpiryEvents.LAG_MS);
        return new ItemExpired(detail.path(ExpiryEvents.TABLE).asText(), Map.copyOf(key),
                detail.path(ExpiryEvents.TTL).asText(), detail.path(ExpiryEvents.EXPIRED_BY).asText(),
                Instant.parse(detail.path(ExpiryEvents.DELETED_AT).asText()),
                lag.isMissingNode() ? null : Duration.ofMillis(lag.asLong()));
    }
}
