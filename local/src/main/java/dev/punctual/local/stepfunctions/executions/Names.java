package dev.punctual.local.stepfunctions.executions;

/** Validates state machine and execution names the way Step Functions does. */
final class Names {

    static final int MAX_LENGTH = 80;
    private static final String FORBIDDEN = "?*<>{}[]\"#%\\^|~`$&,;:/";

    private Names() {
    }

    /**
     * AWS checks the length constraint first ({@code ValidationException}, as its request model
     * does), then the characters ({@code InvalidName}).
     */
    static void validate(String field, String name) {
        if (name.isEmpty() || name.length() > MAX_LENGTH) {
            throw new StepFunctionsException(ErrorCode.VALIDATION, "1 validation error detected: Value '" + name
                    + "' at '" + field + "' failed to satisfy constraint: Member must have length between 1 and "
                    + MAX_LENGTH);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c) || Character.isSpaceChar(c)
                    || FORBIDDEN.indexOf(c) >= 0) {
                throw new StepFunctionsException(ErrorCode.INVALID_NAME, "Invalid Name: '" + name
                        + "' (names may not contain whitespace, control characters or any of "
                        + FORBIDDEN + ")");
            }
        }
    }
}
