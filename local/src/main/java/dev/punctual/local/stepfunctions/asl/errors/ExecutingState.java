package dev.punctual.local.stepfunctions.asl.errors;

/**
 * Where a state's own error arose: the state being executed, and the id of the history event that entered
 * it. Step Functions words such an error's cause with both in front of what went wrong:
 * {@code An error occurred while executing the state 'NAME' (entered at the event id #N). DETAIL}. The
 * state knows its name and what went wrong; only the run that wrote the state's entered event knows its
 * id, so the run places each error its state raised ({@link AslError#raisedIn}).
 *
 * @param stateName the state's name
 * @param enteredEventId the id of the state's {@code *StateEntered} event in the execution's history
 */
public record ExecutingState(String stateName, long enteredEventId) {

    /** {@code detail} as the cause of an error this state raised. */
    public String describe(String detail) {
        return "An error occurred while executing the state '" + stateName + "' (entered at the event id #"
                + enteredEventId + "). " + detail;
    }
}
