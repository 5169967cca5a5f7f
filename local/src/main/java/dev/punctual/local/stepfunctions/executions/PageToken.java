package dev.punctual.local.stepfunctions.executions;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code nextToken}s of the three listings. A token is opaque to callers: the kind of listing
 * and a version, then where the next page starts, in URL-safe Base64. A token of another listing,
 * or no token at all, is {@code InvalidToken}.
 */
enum PageToken {
    /** ListStateMachines: the name of the last machine listed. */
    STATE_MACHINES("s"),
    /** ListExecutions: {@code <startMillis>:<name>} of the last execution listed. */
    EXECUTIONS("e"),
    /** GetExecutionHistory: the position of the next event. */
    HISTORY("h");

    private final String prefix;

    PageToken(String kind) {
        this.prefix = kind + "1:";
    }

    String encode(String position) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((prefix + position).getBytes(StandardCharsets.UTF_8));
    }

    /** The position {@code token} holds, if it is a token of this listing. */
    String decode(String token) {
        String decoded;
        try {
            decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw invalid(token);
        }
        if (!decoded.startsWith(prefix)) {
            throw invalid(token);
        }
        return decoded.substring(prefix.length());
    }

    static StepFunctionsException invalid(String token) {
        return new StepFunctionsException(ErrorCode.INVALID_TOKEN, "Invalid Token: '" + token
                + "' is not a nextToken this listing returned");
    }
}
