package dev.punctual.local.stepfunctions.executions;

/**
 * The records of the journal and of snapshots, in the compact binary form {@link BinaryWriter}
 * writes. Each starts with a type byte; names identify state machines and executions. Replaying
 * them is idempotent (the engine skips what it already has), which is what lets a snapshot taken
 * while writes go on overlap the journal segment that follows it.
 */
final class JournalRecords {

    static final int STATE_MACHINE_PUT = 1;
    static final int STATE_MACHINE_DELETE = 2;
    static final int EXECUTION_STARTED = 3;
    static final int EVENT = 4;
    static final int CHECKPOINT = 5;
    static final int COMPLETED = 6;
    static final int HISTORY = 7;
    static final int SNAPSHOT_END = 8;

    private JournalRecords() {
    }

    static byte[] stateMachinePut(StateMachine sm, Definition d) {
        return new BinaryWriter(256 + d.parsed().json().length()).writeByte(STATE_MACHINE_PUT)
                .writeString(sm.name).writeLong(sm.creationMillis).writeVarInt(d.revision())
                .writeString(d.parsed().json()).writeString(d.roleArn()).writeLong(d.updateMillis())
                .toByteArray();
    }

    static byte[] stateMachineDelete(StateMachine sm) {
        return new BinaryWriter(64).writeByte(STATE_MACHINE_DELETE).writeString(sm.name)
                .writeLong(sm.creationMillis).toByteArray();
    }

    static byte[] executionStarted(Execution e) {
        return new BinaryWriter(64 + e.input.length).writeByte(EXECUTION_STARTED)
                .writeString(e.stateMachine.name).writeString(e.name).writeVarInt(e.definition.revision())
                .writeLong(e.startMillis).writeBytes(e.input).toByteArray();
    }

    static byte[] event(Execution e, int eventId, byte[] encodedEvent) {
        return new BinaryWriter(64 + encodedEvent.length).writeByte(EVENT)
                .writeString(e.stateMachine.name).writeString(e.name).writeVarInt(eventId)
                .writeBytes(encodedEvent).toByteArray();
    }

    /** The whole history at once, for snapshots. */
    static byte[] history(Execution e) {
        return new BinaryWriter(64 + e.historyLength).writeByte(HISTORY)
                .writeString(e.stateMachine.name).writeString(e.name).writeVarInt(e.eventCount)
                .writeBytes(java.util.Arrays.copyOf(e.history, e.historyLength)).toByteArray();
    }

    static byte[] checkpoint(Execution e) {
        return new BinaryWriter(64).writeByte(CHECKPOINT)
                .writeString(e.stateMachine.name).writeString(e.name).writeString(e.checkpointState)
                .writeNullableBytes(e.checkpointInput).writeLong(e.checkpointEnteredMillis)
                .writeLong(e.checkpointWakeMillis).toByteArray();
    }

    static byte[] completed(Execution e) {
        return new BinaryWriter(64).writeByte(COMPLETED)
                .writeString(e.stateMachine.name).writeString(e.name).writeByte(e.status.ordinal())
                .writeLong(e.stopMillis).writeNullableBytes(e.output).writeNullableString(e.error)
                .writeNullableString(e.cause).toByteArray();
    }

    static byte[] snapshotEnd() {
        return new byte[] {SNAPSHOT_END};
    }
}
