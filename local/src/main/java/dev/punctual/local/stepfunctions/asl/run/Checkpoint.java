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
 */
public record Checkpoint(String stateName, JsonNode stateInput, Instant enteredAt, Instant wakeAt) {
}
