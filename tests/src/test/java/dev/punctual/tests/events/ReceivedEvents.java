package dev.punctual.tests.events;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.events.EventStore;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryEvents;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** What the runtime's EventBridge endpoint received for one table: the stored events' details. */
final class ReceivedEvents {

    private final LocalRuntime runtime;
    private final String table;

    ReceivedEvents(LocalRuntime runtime, String table) {
        this.runtime = runtime;
        this.table = table;
    }

    /** Every event's detail for the table, in the order received. */
    List<JsonNode> details() {
        return runtime.observations().events().all().stream().filter(event -> table.equals(event.table()))
                .map(EventStore.StoredEvent::event)
                .map(event -> event.get("detail")).toList();
    }

    /** The details by the key's {@code id} string. */
    Map<String, List<JsonNode>> byItem() {
        return details().stream().collect(Collectors.groupingBy(ReceivedEvents::itemId));
    }

    /** The distinct event ids received. */
    Set<String> ids() {
        return details().stream().map(detail -> detail.get(ExpiryEvents.ID).asText()).collect(Collectors.toSet());
    }

    static String itemId(JsonNode detail) {
        return detail.path(ExpiryEvents.KEY).path("id").path("S").asText();
    }
}
