package dev.punctual.local.stepfunctions.executions;

import java.util.Arrays;

/**
 * The records of the journal and of snapshots, in the compact binary form {@link BinaryWriter}
 * writes, both ways: the {@code encode} methods write them and {@link #decode} reads them back.
 * Each starts with a type byte; names identify state machines and executions. Replaying them is
 * idempotent (recovery skips what it already has), which is what lets a snapshot taken while writes
 * go on overlap the journal segment that follows it.
 */
final class JournalCodec {

    private static final int STATE_MACHINE_PUT = 1;
    private static final int STATE_MACHINE_DELETE = 2;
    private static final int EXECUTION_STARTED = 3;
    private static final int EVENT = 4;
    private static final int CHECKPOINT = 5;
    private static final int COMPLETED = 6;
    private static final int HISTORY = 7;
    /** Type byte of the record that ends a complete snapshot; it has no other content. */
    static final int SNAPSHOT_END = 8;
    private static final int FILED = 9;

    /** One decoded record. */
    sealed interface Record {
    }

    /**
     * A state machine's revision (its first one creates it), with the machine's type and logging, which
     * journals written before Express machines existed lack (they read back as Standard, logging off).
     */
    record StateMachinePut(String name, long creationMillis, int revision, String definitionJson, String roleArn,
            long updateMillis, WorkflowType type, ExecutionLogging logging) implements Record {
    }

    /** A state machine turned {@code DELETING}. */
    record StateMachineDelete(String name, long creationMillis) implements Record {
    }

    /** An execution opened. */
    record ExecutionStarted(String stateMachine, String execution, int revision, long startMillis, byte[] input)
            implements Record {
    }

    /** One history event, {@link HistoryCodec}-encoded; {@code eventId} counts from 1. */
    record Event(String stateMachine, String execution, int eventId, byte[] event) implements Record {
    }

    /** A whole history at once, as snapshots write it. */
    record History(String stateMachine, String execution, int eventCount, byte[] history) implements Record {
    }

    /**
     * A running execution's last checkpoint; {@code stateInput == null} means the execution input. A Wait's
     * {@code enteredEventId}, which journals written before it was recorded lack, reads back as 0.
     */
    record Checkpointed(String stateMachine, String execution, String state, byte[] stateInput, long enteredMillis,
            long wakeMillis, int enteredEventId) implements Record {
    }

    /**
     * A closed execution whole, as a closed-execution file holds it: its start, history and outcome in one
     * record, with its state machine's creation time, so an execution of an earlier incarnation of a
     * name (deleted, then created again) is not given to the later one on replay.
     */
    record Filed(String stateMachine, long stateMachineCreationMillis, String execution, int revision,
            long startMillis, byte[] input, int eventCount, byte[] history, ExecutionStatus status, long stopMillis,
            byte[] output, String error, String cause) implements Record {
    }

    /** An execution closed. */
    record Completed(String stateMachine, String execution, ExecutionStatus status, long stopMillis, byte[] output,
            String error, String cause) implements Record {
    }

    private JournalCodec() {
    }

    static byte[] stateMachinePut(StateMachine sm, StateMachineRevision d) {
        return new BinaryWriter(256 + d.parsed().json().length()).writeByte(STATE_MACHINE_PUT)
                .writeString(sm.name).writeLong(sm.creationMillis).writeVarInt(d.revision())
                .writeString(d.parsed().json()).writeString(d.roleArn()).writeLong(d.updateMillis())
                .writeString(sm.type.name()).writeString(sm.logging.level())
                .writeByte(sm.logging.includeExecutionData() ? 1 : 0)
                .toByteArray();
    }

    static byte[] stateMachineDelete(StateMachine sm) {
        return new BinaryWriter(64).writeByte(STATE_MACHINE_DELETE).writeString(sm.name)
                .writeLong(sm.creationMillis).toByteArray();
    }

    static byte[] executionStarted(RecordedExecution e) {
        return new BinaryWriter(64 + e.input.length).writeByte(EXECUTION_STARTED)
                .writeString(e.stateMachine.name).writeString(e.name).writeVarInt(e.revision.revision())
                .writeLong(e.startMillis).writeBytes(e.input).toByteArray();
    }

    static byte[] event(RecordedExecution e, int eventId, byte[] encodedEvent) {
        return new BinaryWriter(64 + encodedEvent.length).writeByte(EVENT)
                .writeString(e.stateMachine.name).writeString(e.name).writeVarInt(eventId)
                .writeBytes(encodedEvent).toByteArray();
    }

    /** The whole history at once, for snapshots. */
    static byte[] history(RecordedExecution e) {
        return new BinaryWriter(64 + e.historyLength).writeByte(HISTORY)
                .writeString(e.stateMachine.name).writeString(e.name).writeVarInt(e.eventCount)
                .writeBytes(Arrays.copyOf(e.history, e.historyLength)).toByteArray();
    }

    static byte[] checkpoint(RecordedExecution e) {
        return new BinaryWriter(64).writeByte(CHECKPOINT)
                .writeString(e.stateMachine.name).writeString(e.name).writeString(e.checkpointState)
                .writeNullableBytes(e.checkpointInput).writeLong(e.checkpointEnteredMillis)
                .writeLong(e.checkpointWakeMillis).writeVarInt(e.checkpointEnteredEventId).toByteArray();
    }

    static byte[] completed(RecordedExecution e) {
        return new BinaryWriter(64).writeByte(COMPLETED)
                .writeString(e.stateMachine.name).writeString(e.name).writeByte(e.status.ordinal())
                .writeLong(e.stopMillis).writeNullableBytes(e.output).writeNullableString(e.error)
                .writeNullableString(e.cause).toByteArray();
    }

    /** A closed execution whole, for closed-execution files; call holding the execution's monitor. */
    static byte[] filed(RecordedExecution e) {
        return new BinaryWriter(128 + e.input.length + e.historyLength).writeByte(FILED)
                .writeString(e.stateMachine.name).writeLong(e.stateMachine.creationMillis).writeString(e.name)
                .writeVarInt(e.revision.revision()).writeLong(e.startMillis).writeBytes(e.input)
                .writeVarInt(e.eventCount).writeBytes(Arrays.copyOf(e.history, e.historyLength))
                .writeByte(e.status.ordinal()).writeLong(e.stopMillis).writeNullableBytes(e.output)
                .writeNullableString(e.error).writeNullableString(e.cause).toByteArray();
    }

    static byte[] snapshotEnd() {
        return new byte[] {SNAPSHOT_END};
    }

    /** Reads back a record one of the {@code encode} methods above wrote. */
    static Record decode(byte[] record) {
        BinaryReader in = new BinaryReader(record);
        int type = in.readByte();
        return switch (type) {
            case STATE_MACHINE_PUT -> {
                String name = in.readString();
                long creation = in.readLong();
                int revision = in.readVarInt();
                String definition = in.readString();
                String role = in.readString();
                long update = in.readLong();
                boolean typed = in.hasMore();
                yield new StateMachinePut(name, creation, revision, definition, role, update,
                        typed ? WorkflowType.valueOf(in.readString()) : WorkflowType.STANDARD,
                        typed ? new ExecutionLogging(in.readString(), in.readByte() == 1) : ExecutionLogging.OFF);
            }
            case STATE_MACHINE_DELETE -> new StateMachineDelete(in.readString(), in.readLong());
            case EXECUTION_STARTED -> new ExecutionStarted(in.readString(), in.readString(), in.readVarInt(),
                    in.readLong(), in.readBytes());
            case EVENT -> new Event(in.readString(), in.readString(), in.readVarInt(), in.readBytes());
            case HISTORY -> new History(in.readString(), in.readString(), in.readVarInt(), in.readBytes());
            case CHECKPOINT -> new Checkpointed(in.readString(), in.readString(), in.readString(),
                    in.readNullableBytes(), in.readLong(), in.readLong(), in.hasMore() ? in.readVarInt() : 0);
            case COMPLETED -> new Completed(in.readString(), in.readString(), ExecutionStatus.values()[in.readByte()],
                    in.readLong(), in.readNullableBytes(), in.readNullableString(), in.readNullableString());
            case FILED -> new Filed(in.readString(), in.readLong(), in.readString(), in.readVarInt(), in.readLong(),
                    in.readBytes(), in.readVarInt(), in.readBytes(), ExecutionStatus.values()[in.readByte()],
                    in.readLong(), in.readNullableBytes(), in.readNullableString(), in.readNullableString());
            default -> throw new IllegalStateException("Unknown journal record type " + type);
        };
    }
}
