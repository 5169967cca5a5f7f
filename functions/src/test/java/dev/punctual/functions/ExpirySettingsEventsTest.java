package dev.punctual.functions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The expiry-event variables of {@link ExpirySettings}. */
class ExpirySettingsEventsTest {

    private static Map<String, String> environment(String... pairs) {
        Map<String, String> environment = new HashMap<>(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, ExpiryStreamHandlerTest.STATE_MACHINE,
                StreamWiring.ENV_TTL_ATTRIBUTE, "ttl"));
        for (int i = 0; i < pairs.length; i += 2) {
            environment.put(pairs[i], pairs[i + 1]);
        }
        return environment;
    }

    @Test
    void withoutABus_eventsAreOff() {
        ExpirySettings settings = ExpirySettings.fromEnvironment(environment());

        assertThat(settings.eventBus()).isEmpty();
        assertThat(settings.includeOldImage()).isFalse();
        assertThat(settings.eventsEndpoint()).isEmpty();
    }

    @Test
    void aBusAndAnEndpoint_areRead() {
        ExpirySettings settings = ExpirySettings.fromEnvironment(environment(
                ExpiryEvents.ENV_EVENT_BUS, " arn:aws:events:us-east-1:123456789012:event-bus/default ",
                ExpiryEvents.ENV_INCLUDE_OLD_IMAGE, "TRUE",
                ExpiryEvents.ENV_EVENTS_ENDPOINT, "http://127.0.0.1:8084"));

        assertThat(settings.eventBus()).hasValue("arn:aws:events:us-east-1:123456789012:event-bus/default");
        assertThat(settings.includeOldImage()).isTrue();
        assertThat(settings.eventsEndpoint()).hasValue(URI.create("http://127.0.0.1:8084"));
    }

    @Test
    void oldImageWithoutABus_andBadValues_areRefusedNamingTheVariable() {
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE, "true")))
                .hasMessageContaining(ExpiryEvents.ENV_EVENT_BUS);
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(ExpiryEvents.ENV_EVENT_BUS, "b",
                ExpiryEvents.ENV_INCLUDE_OLD_IMAGE, "yes")))
                .hasMessageContaining(ExpiryEvents.ENV_INCLUDE_OLD_IMAGE).hasMessageContaining("true or false");
        assertThatThrownBy(() -> ExpirySettings.fromEnvironment(environment(ExpiryEvents.ENV_EVENT_BUS, "b",
                ExpiryEvents.ENV_EVENTS_ENDPOINT, "ftp://x")))
                .hasMessageContaining(ExpiryEvents.ENV_EVENTS_ENDPOINT);
    }
}
