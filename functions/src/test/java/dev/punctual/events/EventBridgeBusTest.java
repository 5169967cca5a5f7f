package dev.punctual.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.statemachine.ExpiryEvents;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResultEntry;

/**
 * {@link EventBridgeBus} on an {@link EventBridgeClient} that records each {@code PutEvents} request
 * and answers as told: the request's exact shape, and how each answer maps to per-entry errors.
 */
class EventBridgeBusTest {

    /** Records requests; answers each with what {@code answer} gives (or throws). */
    private static final class RecordingClient implements EventBridgeClient {
        final List<PutEventsRequest> requests = new ArrayList<>();
        Function<PutEventsRequest, PutEventsResponse> answer;
        boolean closed;

        @Override
        public PutEventsResponse putEvents(PutEventsRequest request) {
            requests.add(request);
            return answer.apply(request);
        }

        @Override
        public String serviceName() {
            return "events";
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static final Instant TIME = Instant.parse("2027-01-15T08:00:01Z");
    private final RecordingClient client = new RecordingClient();
    private final EventBridgeBus bus = new EventBridgeBus(client, "punctual-events", false);

    private static EventEntry entry(String sequenceNumber) {
        return new EventEntry(sequenceNumber, TIME, "{\"id\":\"" + sequenceNumber + "\"}", List.of("arn:aws:dynamodb:eu-west-1:1:table/orders"));
    }

    private static PutEventsResultEntry accepted(String id) {
        return PutEventsResultEntry.builder().eventId(id).build();
    }

    private static PutEventsResultEntry refused(String code) {
        return PutEventsResultEntry.builder().errorCode(code).errorMessage("no").build();
    }

    private static Function<PutEventsRequest, PutEventsResponse> results(PutEventsResultEntry... entries) {
        return request -> PutEventsResponse.builder().entries(Arrays.asList(entries)).build();
    }

    @Test
    void put_sendsOneEntryPerEvent_onTheBus_withPunctualsSourceAndDetailType() {
        client.answer = results(accepted("e1"), accepted("e2"));

        List<String> errors = bus.put(List.of(entry("1"), entry("2")));

        assertThat(errors).containsExactly(null, null);
        assertThat(client.requests).singleElement().satisfies(request -> assertThat(request.entries()).containsExactly(
                PutEventsRequestEntry.builder().eventBusName("punctual-events").source(ExpiryEvents.SOURCE)
                        .detailType(ExpiryEvents.DETAIL_TYPE).time(TIME).resources("arn:aws:dynamodb:eu-west-1:1:table/orders")
                        .detail("{\"id\":\"1\"}").build(),
                PutEventsRequestEntry.builder().eventBusName("punctual-events").source(ExpiryEvents.SOURCE)
                        .detailType(ExpiryEvents.DETAIL_TYPE).time(TIME).resources("arn:aws:dynamodb:eu-west-1:1:table/orders")
                        .detail("{\"id\":\"2\"}").build()));
    }

    @Test
    void put_givesEachRefusedEntryItsErrorCode_andAnEntryWithoutResultOrIdAnErrorToo() {
        client.answer = results(accepted("e1"), refused("ThrottlingException"), PutEventsResultEntry.builder().build());

        assertThat(bus.put(List.of(entry("1"), entry("2"), entry("3"), entry("4"))))
                .containsExactly(null, "ThrottlingException", "NoEventId", "MissingResult");
    }

    @Test
    void put_whenTheWholeCallFails_givesEveryEntryTheCallsError() {
        client.answer = request -> {
            throw AwsServiceException.builder().statusCode(500)
                    .awsErrorDetails(AwsErrorDetails.builder().errorCode("InternalException").build()).build();
        };
        assertThat(bus.put(List.of(entry("1"), entry("2")))).containsExactly("InternalException", "InternalException");

        client.answer = request -> {
            throw AwsServiceException.builder().statusCode(503).build();
        };
        assertThat(bus.put(List.of(entry("1")))).containsExactly("AwsServiceException");

        client.answer = request -> {
            throw SdkClientException.create("connection refused");
        };
        assertThat(bus.put(List.of(entry("1"), entry("2")))).containsExactly("SdkClientException", "SdkClientException");
    }

    @Test
    void close_closesTheClientOnlyWhenItOwnsIt() {
        bus.close();
        assertThat(client.closed).isFalse();

        new EventBridgeBus(client, "punctual-events", true).close();
        assertThat(client.closed).isTrue();
    }

    @Test
    void entrySize_countsTimeSourceDetailTypeDetailAndResources_inUtf8Bytes() {
        EventEntry entry = new EventEntry("1", TIME, "{\"k\":\"é\"}", List.of("arn:a", "arn:bc"));

        int expected = ExpiryEvents.TIME_BYTES + ExpiryEvents.SOURCE.length() + ExpiryEvents.DETAIL_TYPE.length()
                + "{\"k\":\"\"}".length() + 2 + "arn:a".length() + "arn:bc".length();
        assertThat(entry.sizeInBytes()).isEqualTo(expected);
        assertThat(EventEntry.sizeInBytes(entry.detail(), entry.resources())).isEqualTo(expected);
    }
}
