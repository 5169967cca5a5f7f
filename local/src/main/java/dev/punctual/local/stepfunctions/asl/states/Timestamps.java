package dev.punctual.local.stepfunctions.asl.states;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Pattern;

/** RFC 3339 timestamps as Step Functions accepts them: an uppercase {@code T}, and {@code Z} or an offset. */
public final class Timestamps {

    private static final Pattern RFC_3339 =
            Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})");

    private Timestamps() {
    }

    /** The instant, or empty when the text is not such a timestamp. */
    public static Optional<Instant> parse(String text) {
        if (text == null || !RFC_3339.matcher(text).matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(OffsetDateTime.parse(text).toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
