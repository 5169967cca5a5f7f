package dev.punctual.local.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.punctual.statemachine.StreamWiring;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What the stream function's context says of itself, as Powertools reads it for every log line. */
class InvocationContextTest {

    @Test
    void invoke_givesTheHandlerTheDeployedFunctionsNameMemoryAndTimeout() {
        AtomicReference<Context> seen = new AtomicReference<>();
        RequestHandler<DynamodbEvent, StreamsEventResponse> handler = (event, context) -> {
            seen.set(context);
            return new StreamsEventResponse(List.of());
        };
        Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

        Invocation.invoke(handler, List.of(), "orders", "us-east-1", clock);

        assertThat(seen.get().getFunctionName()).isEqualTo("punctual-expiry-orders");
        assertThat(seen.get().getMemoryLimitInMB()).isEqualTo(StreamWiring.STREAM_FUNCTION_MEMORY_MB);
        assertThat(seen.get().getRemainingTimeInMillis()).isEqualTo((int) StreamWiring.FUNCTION_TIMEOUT.toMillis());
    }

    @Test
    void aFunctionDeployedWithOtherMemory_saysSo() {
        LocalLambdaContext context = new LocalLambdaContext("punctual-backfill", 1024, "us-east-1", Clock.systemUTC());

        assertThat(context.getMemoryLimitInMB()).isEqualTo(1024);
    }
}
