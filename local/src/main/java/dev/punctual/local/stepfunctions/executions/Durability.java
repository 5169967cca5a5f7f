package dev.punctual.local.stepfunctions.executions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The engine's state as journal records, both ways: a compaction writes the registry out as records
 * (state machines and running executions into its snapshot, executions closed since the last one into
 * its closed-execution file), and recovery applies records read back from the snapshot, the
 * closed-execution files and the journal, then resumes what was running. Applying a record the registry
 * already reflects changes nothing.
 */
final class Durability implements Journal.SnapshotSource {

    private final ExecutionHost host;
    private final Registry registry;
    private final Deadlines deadlines;

    Durability(ExecutionHost host, Registry registry, Deadlines deadlines) {
        this.host = host;
        this.registry = registry;
        this.deadlines = deadlines;
    }

    @Override
    public void writeSnapshot(Journal.SnapshotWriter writer) {
        List<Execution> toFile = new ArrayList<>();
        for (StateMachine sm : List.copyOf(registry.all())) {
            List<StateMachineRevision> revisions = new ArrayList<>(sm.revisions.values());
            revisions.sort(Comparator.comparingInt(StateMachineRevision::revision));
            for (StateMachineRevision d : revisions) {
                writer.snapshot(JournalCodec.stateMachinePut(sm, d));
            }
            for (Execution e : sm.executionsByName.values()) {
                if (e.writeSnapshot(writer)) {
                    toFile.add(e);
                }
            }
            if (sm.deleting) {
                writer.snapshot(JournalCodec.stateMachineDelete(sm));
            }
        }
        // In the order they closed: replay keeps them in the order it reads them, and forgets the first
        // read first once more are kept than the retention's count.
        toFile.sort(Comparator.comparingLong(Execution::stopMillis));
        toFile.forEach(e -> e.file(writer));
    }

    /**
     * Applies one record while recovering; records already applied are skipped.
     *
     * @param filedIn the closed-execution file the record came from, or {@code null}
     */
    void replay(byte[] encoded, Journal.ClosedFile filedIn) {
        JournalCodec.Record record = JournalCodec.decode(encoded);
        if (record instanceof JournalCodec.Filed filed) {
            replayFiled(filed, filedIn);
        } else if (record instanceof JournalCodec.StateMachinePut put) {
            replayPut(put);
        } else if (record instanceof JournalCodec.StateMachineDelete delete) {
            StateMachine sm = registry.get(delete.name());
            if (sm != null && sm.creationMillis == delete.creationMillis()) {
                sm.deleting = true;
                registry.removeIfDeleted(sm);
            }
        } else if (record instanceof JournalCodec.ExecutionStarted started) {
            StateMachine sm = registry.get(started.stateMachine());
            StateMachineRevision revision = sm == null ? null : sm.revisions.get(started.revision());
            if (revision != null && !sm.executionsByName.containsKey(started.execution())) {
                sm.add(new Execution(sm, revision, started.execution(), started.startMillis(), started.input()));
                sm.running.incrementAndGet();
                registry.openRecovered();
            }
        } else if (record instanceof JournalCodec.Event event) {
            Execution e = execution(event.stateMachine(), event.execution());
            if (e != null) {
                e.replayEvent(event.eventId(), event.event());
            }
        } else if (record instanceof JournalCodec.History history) {
            Execution e = execution(history.stateMachine(), history.execution());
            if (e != null) {
                e.replayHistory(history.eventCount(), history.history());
            }
        } else if (record instanceof JournalCodec.Checkpointed checkpoint) {
            Execution e = execution(checkpoint.stateMachine(), checkpoint.execution());
            if (e != null) {
                e.replayCheckpoint(checkpoint.state(), checkpoint.stateInput(), checkpoint.enteredMillis(),
                        checkpoint.wakeMillis(), checkpoint.enteredEventId());
            }
        } else if (record instanceof JournalCodec.Completed completed) {
            Execution e = execution(completed.stateMachine(), completed.execution());
            if (e != null) {
                e.replayClose(completed.status(), completed.stopMillis(), completed.output(), completed.error(),
                        completed.cause());
            }
        }
    }

    /**
     * A closed execution from a closed-execution file: opened and closed at once if it is new, marked filed
     * there so the next compaction keeps the file; one the snapshot already had (a file written by a
     * compaction whose snapshot a crash cut short) only gains what it lacked and is filed again later.
     */
    private void replayFiled(JournalCodec.Filed filed, Journal.ClosedFile filedIn) {
        StateMachine sm = registry.get(filed.stateMachine());
        if (sm == null || sm.creationMillis != filed.stateMachineCreationMillis()) {
            // Its state machine was deleted since, perhaps created again under the same name.
            return;
        }
        StateMachineRevision revision = sm.revisions.get(filed.revision());
        Execution e = sm.executionsByName.get(filed.execution());
        if (e == null && revision != null) {
            e = new Execution(sm, revision, filed.execution(), filed.startMillis(), filed.input());
            e.filedIn(filedIn);
            sm.add(e);
            sm.running.incrementAndGet();
            registry.openRecovered();
        }
        if (e != null) {
            e.replayHistory(filed.eventCount(), filed.history());
            e.replayClose(filed.status(), filed.stopMillis(), filed.output(), filed.error(), filed.cause());
        }
    }

    private void replayPut(JournalCodec.StateMachinePut put) {
        StateMachine sm = registry.get(put.name());
        if (sm != null && sm.creationMillis > put.creationMillis()) {
            return;
        }
        if (sm != null && sm.revisions.containsKey(put.revision()) && sm.creationMillis == put.creationMillis()) {
            return;
        }
        StateMachineRevision revision = new StateMachineRevision(put.revision(), host.parse(put.definitionJson()),
                put.roleArn(), put.updateMillis());
        if (sm == null || sm.creationMillis < put.creationMillis()) {
            registry.put(new StateMachine(host, put.name(), host.arns.stateMachine(put.name()), put.creationMillis(),
                    revision, put.type(), put.logging()));
        } else {
            sm.addRevision(revision);
            sm.logging = put.logging();
        }
    }

    private Execution execution(String stateMachine, String name) {
        StateMachine sm = registry.get(stateMachine);
        return sm == null ? null : sm.executionsByName.get(name);
    }

    /** After replay: re-arms deadlines and resumes every running execution from its last checkpoint. */
    int resumeRecovered() {
        List<Execution> running = registry.running();
        running.forEach(deadlines::track);
        running.forEach(Execution::resume);
        return running.size();
    }
}
