package dev.punctual.local.stepfunctions.asl.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * A point a top-level execution can be resumed from after a restart.
 *
 * @param stateName the top-level state being entered or waited in
 * @param stateInput that state's raw input (before InputPath)
 * @param enteredAt when the state was entered ({@code $$.State.EnteredTime})
 * @param wakeAt for a Wait state, the instant it ends; {@code null} otherwise
 * @param enteredEventId for a Wait state, the id of its entered event, which the resumed Wait goes on
 *     naming in the cause of an error; {@code 0} otherwise (any other state is entered again, with a new
 *     event), and for a checkpoint recorded before the id was
 */
public record Checkpoint(String stateName, JsonNode stateInput, Instant enteredAt, Instant wakeAt,
        long enteredEventId) {

    /** A checkpoint at a state about to be entered, which a resume enters again. */
    public static Checkpoint entering(String stateName, JsonNode stateInput, Instant enteredAt) {
        return new Checkpoint(stateName, stateInput, enteredAt, null, 0);
    }
}
