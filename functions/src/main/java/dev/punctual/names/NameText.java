package dev.punctual.names;

import dev.punctual.statemachine.StepFunctionsLimits;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.ResolverStyle;
import java.util.Optional;

/** The pieces names are made of, as text and as the patterns that read them back. */
final class NameText {

    /** Characters of a table name kept in a name. */
    static final int TABLE_LABEL_LENGTH = 24;
    /** An instant to the second, {@code uuuuMMdd'T'HHmmss'Z'}: 16 characters for the years 0000 to 9999. */
    static final String INSTANT_PATTERN = "[0-9]{8}T[0-9]{6}Z";
    /**
     * One base32 digest character; a digest of {@code n} is {@code BASE32_PATTERN + "{n}"}. A constant, not a
     * method: patterns are compiled as classes load, where a mutation tester cannot reach a method's body.
     */
    static final String BASE32_PATTERN = "[a-z2-7]";
    /** A table label: what {@link #tableLabel} leaves. */
    static final String TABLE_LABEL_PATTERN = "[A-Za-z0-9_.-]{0," + TABLE_LABEL_LENGTH + "}";

    private static final DateTimeFormatter INSTANT_LABEL = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC).withResolverStyle(ResolverStyle.STRICT);

    private NameText() {
    }

    /** The instant to the second, first in names so the console sorts executions by it. */
    static String instant(Instant instant) {
        return INSTANT_LABEL.format(instant);
    }

    /** The instant {@link #instant(Instant)} wrote; empty for text that is no date and time (a 31 November). */
    static Optional<Instant> instant(String label) {
        try {
            return Optional.of(Instant.from(INSTANT_LABEL.parse(label)));
        } catch (DateTimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The table name cut to {@value #TABLE_LABEL_LENGTH} characters. Table names are
     * {@code [A-Za-z0-9_.-]}, all legal in execution names; anything else becomes {@code _}.
     */
    static String tableLabel(String table) {
        StringBuilder label = new StringBuilder(TABLE_LABEL_LENGTH);
        for (int i = 0; i < table.length() && label.length() < TABLE_LABEL_LENGTH; i++) {
            char c = table.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '.' || c == '-';
            label.append(allowed ? c : '_');
        }
        return label.toString();
    }

    /**
     * Whether Punctual may name an execution {@code name}: Step Functions accepts it
     * ({@link StepFunctionsLimits#isValidName}, the rule the local engine applies too) and it is ASCII,
     * which Step Functions does not ask but its CloudWatch logging does (see the package's comment).
     */
    static boolean isLegal(String name) {
        return StepFunctionsLimits.isValidName(name) && StandardCharsets.US_ASCII.newEncoder().canEncode(name);
    }
}
