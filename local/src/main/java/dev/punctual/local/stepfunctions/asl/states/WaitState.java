package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.AslError;
import dev.punctual.local.stepfunctions.asl.ErrorNames;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * {@code Wait}: for {@code Seconds}/{@code SecondsPath}, or until {@code Timestamp}/{@code TimestampPath}
 * with milliseconds truncated as Step Functions does. A past instant proceeds at once. The wait is a
 * timer entry, not a thread.
 */
public final class WaitState extends State {

    private final Long seconds;
    private final JsonPaths.Path secondsPath;
    private final Instant timestamp;
    private final JsonPaths.Path timestampPath;

    public WaitState(StateFields fields, Long seconds, JsonPaths.Path secondsPath, Instant timestamp,
            JsonPaths.Path timestampPath) {
        super(fields);
        this.seconds = seconds;
        this.secondsPath = secondsPath;
        this.timestamp = timestamp;
        this.timestampPath = timestampPath;
    }

    @Override
    public String type() {
        return "Wait";
    }

    @Override
    protected boolean producesResult() {
        return false;
    }

    @Override
    protected void act(Activation activation) {
        Instant wakeAt = wakeAt(activation);
        activation.checkpointWait(wakeAt);
        JsonNode input = activation.input();
        activation.schedule(wakeAt, () -> activation.complete(input));
    }

    private Instant wakeAt(Activation activation) {
        if (seconds != null) {
            return activation.now().plusSeconds(seconds);
        }
        if (timestamp != null) {
            return timestamp.truncatedTo(ChronoUnit.SECONDS);
        }
        if (secondsPath != null) {
            JsonNode value = find(activation, secondsPath);
            if (!value.isIntegralNumber() && !(value.isNumber() && value.decimalValue().stripTrailingZeros().scale() <= 0)
                    || value.decimalValue().signum() < 0) {
                throw new AslError(ErrorNames.RUNTIME, "An error occurred while executing the state '" + name()
                        + "'. The SecondsPath parameter does not reference a valid non-negative integer value: "
                        + Json.write(value));
            }
            return activation.now().plusSeconds(value.decimalValue().longValueExact());
        }
        JsonNode value = find(activation, timestampPath);
        return Timestamps.parse(value.isTextual() ? value.textValue() : null)
                .map(instant -> instant.truncatedTo(ChronoUnit.SECONDS))
                .orElseThrow(() -> new AslError(ErrorNames.RUNTIME, "An error occurred while executing the state '"
                        + name() + "'. The TimestampPath parameter does not reference a valid ISO-8601 extended offset"
                        + " date-time format string: " + Json.write(value)));
    }

    private JsonNode find(Activation activation, JsonPaths.Path path) {
        return path.find(activation.input(), activation.context()).orElseThrow(() -> new AslError(ErrorNames.RUNTIME,
                "An error occurred while executing the state '" + name() + "'. Invalid path '" + path.text()
                        + "': No results for path: " + path.text() + " in input " + Json.write(activation.input())));
    }
}
