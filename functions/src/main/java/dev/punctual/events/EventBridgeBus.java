package dev.punctual.events;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResultEntry;
import dev.punctual.statemachine.ExpiryEvents;

/**
 * {@link EventBus} on EventBridge's {@code PutEvents} through the SDK's {@link EventBridgeClient}: AWS
 * itself, or the local runtime's endpoint. A call that fails as a whole (after the SDK's own retries)
 * gives every entry its error code, so the entries are retried like refused ones.
 */
public final class EventBridgeBus implements EventBus, AutoCloseable {

    private final EventBridgeClient client;
    private final String busName;
    private final boolean ownsClient;

    /**
     * @param busName the bus's name or ARN
     * @param ownsClient whether {@link #close()} closes {@code client}
     */
    public EventBridgeBus(EventBridgeClient client, String busName, boolean ownsClient) {
        this.client = Objects.requireNonNull(client, "client");
        this.busName = Objects.requireNonNull(busName, "busName");
        this.ownsClient = ownsClient;
    }

    @Override
    public List<String> put(List<EventEntry> entries) {
        List<PutEventsRequestEntry> request = new ArrayList<>(entries.size());
        for (EventEntry entry : entries) {
            request.add(PutEventsRequestEntry.builder()
                    .eventBusName(busName)
                    .source(ExpiryEvents.SOURCE)
                    .detailType(ExpiryEvents.DETAIL_TYPE)
                    .time(entry.time())
                    .resources(entry.resources())
                    .detail(entry.detail())
                    .build());
        }
        PutEventsResponse response;
        try {
            response = client.putEvents(PutEventsRequest.builder().entries(request).build());
        } catch (AwsServiceException e) {
            String code = e.awsErrorDetails() != null && e.awsErrorDetails().errorCode() != null
                    ? e.awsErrorDetails().errorCode() : e.getClass().getSimpleName();
            return Collections.nCopies(entries.size(), code);
        } catch (SdkException e) {
            return Collections.nCopies(entries.size(), e.getClass().getSimpleName());
        }
        List<String> errors = new ArrayList<>(entries.size());
        List<PutEventsResultEntry> results = response.entries();
        for (int i = 0; i < entries.size(); i++) {
            PutEventsResultEntry result = i < results.size() ? results.get(i) : null;
            if (result == null) {
                errors.add("MissingResult");
            } else if (result.errorCode() != null || result.eventId() == null) {
                errors.add(result.errorCode() == null ? "NoEventId" : result.errorCode());
            } else {
                errors.add(null);
            }
        }
        return errors;
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }
}
