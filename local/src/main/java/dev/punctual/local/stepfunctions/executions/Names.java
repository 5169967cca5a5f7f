package dev.punctual.local.stepfunctions.executions;

import dev.punctual.statemachine.StepFunctionsLimits;

/**
 * Validates state machine and execution names the way Step Functions does, by the rule both sides share
 * ({@link StepFunctionsLimits#isAllowedInName}): letters outside ASCII pass, as on AWS.
 */
final class Names {

    static final int MAX_LENGTH = StepFunctionsLimits.MAX_NAME_LENGTH;

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
        if (!StepFunctionsLimits.isValidName(name)) {
            throw new StepFunctionsException(ErrorCode.INVALID_NAME, "Invalid Name: '" + name
                    + "' (names may not contain whitespace, control characters, surrogates or any of "
                    + StepFunctionsLimits.NAME_RESERVED_CHARACTERS + ")");
        }
    }
}
