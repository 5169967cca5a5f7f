package dev.punctual.statemachine;

/**
 * Step Functions' limits that both sides of the contract obey: whoever starts an execution (the
 * stream handler, backfill) and the local engine that runs it. They live here, in the module both
 * depend on, so neither depends on the other for them.
 */
public final class StepFunctionsLimits {

    /**
     * The largest execution input or output, and the largest payload a state may pass on, in UTF-8
     * bytes (256 KiB).
     */
    public static final int MAX_PAYLOAD_BYTES = 262_144;

    /** The longest state machine or execution name, in characters. */
    public static final int MAX_NAME_LENGTH = 80;

    /** The brackets, wildcards and special characters a name must not contain, as StartExecution's reference lists them. */
    public static final String NAME_RESERVED_CHARACTERS = "?*<>{}[]\"#%\\^|~`$&,;:/";

    private StepFunctionsLimits() {
    }

    /**
     * Whether Step Functions accepts {@code name} as a state machine or execution name: 1 to
     * {@value #MAX_NAME_LENGTH} characters, each one {@link #isAllowedInName allowed}.
     */
    public static boolean isValidName(String name) {
        return !name.isEmpty() && name.length() <= MAX_NAME_LENGTH
                && name.codePoints().allMatch(StepFunctionsLimits::isAllowedInName);
    }

    /**
     * Whether a name may hold {@code codePoint}. StartExecution's reference says a name must not
     * contain white space, brackets {@code < > { } [ ]}, wildcard characters {@code ? *}, special
     * characters {@code " # % \ ^ | ~ ` $ & , ; : /}, control characters (U+0000-001F, U+007F-009F,
     * U+FFFE-FFFF), surrogates (U+D800-DFFF) or invalid characters (U+10FFFF); anything else,
     * letters outside ASCII included, is accepted. It adds that "to enable logging with CloudWatch
     * Logs, the name should only contain 0-9, A-Z, a-z, - and _": advice, not a check, so the local
     * engine accepts what AWS accepts, and Punctual's own names keep to ASCII because its state
     * machines do log (see {@code dev.punctual.names}).
     */
    public static boolean isAllowedInName(int codePoint) {
        boolean whitespace = Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint);
        boolean control = codePoint <= 0x1F || codePoint >= 0x7F && codePoint <= 0x9F || codePoint == 0xFFFE
                || codePoint == 0xFFFF;
        boolean surrogate = codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE;
        return !whitespace && !control && !surrogate && codePoint != Character.MAX_CODE_POINT
                && NAME_RESERVED_CHARACTERS.indexOf(codePoint) < 0;
    }
}
