package dev.punctual.local.stepfunctions.executions;

import dev.punctual.local.stepfunctions.asl.ParsedDefinition;

/**
 * One revision of a state machine. Executions keep the revision they started with, as in AWS, where
 * running executions finish on the definition they started on after an UpdateStateMachine.
 */
record StateMachineRevision(int revision, ParsedDefinition parsed, String roleArn, long updateMillis) {
}
