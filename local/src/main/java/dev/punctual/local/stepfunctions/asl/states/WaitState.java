package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;

/**
 * {@code Wait}: for {@code Seconds}/{@code SecondsPath}, or until {@code Timestamp}/{@code TimestampPath}
 * with milliseconds truncated as Step Functions does. A past instant proceeds at once; a path's wait
 * longer than {@link #MAX_DELAY_SECONDS} fails, as in Step Functions. The wait is a timer entry, not a
 * thread.
 */
public final class WaitState extends State {

    /**
     * The longest wait a path or a timestamp may ask for: 2^31 - 1 seconds. AWS waited until a timestamp
     * 24,855 days ahead and refused one 24,856 days ahead with {@code Wait state delay is too long.}
     * (LocalStack's {@code test_timestamp_too_far_in_future_boundary}).
     */
    static final long MAX_DELAY_SECONDS = Integer.MAX_VALUE;
    private static final List<String> DURATIONS = List.of("Seconds", "SecondsPath", "Timestamp", "TimestampPath");
    public static final StateType TYPE = new StateType("Wait", StateType.common(StateFields.TRANSITION, StateFields.PATHS),
            Set.copyOf(DURATIONS), WaitState::read);

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
        return TYPE.name();
    }

    private static WaitState read(StateFields fields, DefinitionNode node) {
        if (DURATIONS.stream().filter(node::has).count() != 1) {
            throw node.error("A Wait state needs exactly one of Seconds, SecondsPath, Timestamp or TimestampPath");
        }
        Long seconds = node.has("Seconds") ? node.nonNegativeInteger("Seconds", 0) : null;
        Instant timestamp = null;
        if (node.has("Timestamp")) {
            JsonNode value = node.get("Timestamp");
            timestamp = Timestamps.parse(value.isTextual() ? value.textValue() : null).orElseThrow(() -> node.error(
                    "Timestamp", "'Timestamp' must be an RFC 3339 timestamp such as 2016-03-14T01:59:00Z"));
        }
        return new WaitState(fields, seconds, node.optionalPath("SecondsPath"), timestamp,
                node.optionalPath("TimestampPath"));
    }

    @Override
    protected boolean producesResult() {
        return false;
    }

    @Override
    protected void act(Attempt attempt) {
        Instant wakeAt = wakeAt(attempt);
        attempt.checkpointWait(wakeAt);
        JsonNode input = attempt.input();
        attempt.schedule(wakeAt, () -> attempt.complete(input));
    }

    private Instant wakeAt(Attempt attempt) {
        if (seconds != null) {
            return attempt.now().plusSeconds(seconds);
        }
        if (timestamp != null) {
            return notTooFar(attempt, timestamp.truncatedTo(ChronoUnit.SECONDS));
        }
        if (secondsPath != null) {
            JsonNode value = secondsPath.find(attempt.input(), attempt.context()).orElseThrow(() ->
                    new StatesRuntimeError("The SecondsPath parameter does not reference an input value: "
                            + secondsPath.text()));
            if (!value.isIntegralNumber() && !(value.isNumber() && value.decimalValue().stripTrailingZeros().scale() <= 0)) {
                throw new StatesRuntimeError("The SecondsPath parameter cannot be parsed as a long value: "
                        + assignment(secondsPath, value));
            }
            if (value.decimalValue().signum() < 0) {
                throw new StatesRuntimeError("The SecondsPath parameter references a negative value: "
                        + assignment(secondsPath, value));
            }
            if (value.decimalValue().compareTo(java.math.BigDecimal.valueOf(MAX_DELAY_SECONDS)) > 0) {
                throw tooLong();
            }
            return attempt.now().plusSeconds(value.decimalValue().longValueExact());
        }
        JsonNode value = timestampPath.find(attempt.input(), attempt.context())
                .orElseThrow(() -> invalidPath(timestampPath, attempt.input(), attempt.context()));
        Instant until = Timestamps.parse(value.isTextual() ? value.textValue() : null)
                .map(instant -> instant.truncatedTo(ChronoUnit.SECONDS))
                .orElseThrow(() -> new StatesRuntimeError("The TimestampPath parameter does not"
                        + " reference a valid ISO-8601 extended offset date-time format string: "
                        + assignment(timestampPath, value)));
        return notTooFar(attempt, until);
    }

    private static Instant notTooFar(Attempt attempt, Instant until) {
        if (until.getEpochSecond() - attempt.now().getEpochSecond() > MAX_DELAY_SECONDS) {
            throw tooLong();
        }
        return until;
    }

    private static StatesRuntimeError tooLong() {
        return new StatesRuntimeError("Wait state delay is too long.");
    }

    /** A path and the value it selected, as AWS quotes them: {@code $.wait == 1.5}, a string without quotes. */
    private static String assignment(JsonPaths.Path path, JsonNode value) {
        return path.text() + " == " + (value.isTextual() ? value.textValue() : Json.write(value));
    }
}
