package dev.punctual.local.stepfunctions.executions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * The engine's state as journal records, both ways: a snapshot writes the registry out as records,
 * and recovery applies records read back from the snapshot and the journal, then resumes what was
 * running. Applying a record the registry already reflects changes nothing.
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
    public void writeSnapshot(Consumer<byte[]> sink) {
        for (StateMachine sm : List.copyOf(registry.all())) {
            List<StateMachineRevision> revisions = new ArrayList<>(sm.revisions.values());
            revisions.sort(Comparator.comparingInt(StateMachineRevision::revision));
            for (StateMachineRevision d : revisions) {
                sink.accept(JournalCodec.stateMachinePut(sm, d));
            }
            for (Execution e : sm.executionsByName.values()) {
                e.writeSnapshot(sink);
            }
            if (sm.deleting) {
                sink.accept(JournalCodec.stateMachineDelete(sm));
            }
        }
    }

    /** Applies one journal or snapshot record while recovering; records already applied are skipped. */
    void replay(byte[] encoded) {
        JournalCodec.Record record = JournalCodec.decode(encoded);
        if (record instanceof JournalCodec.StateMachinePut put) {
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
                        checkpoint.wakeMillis());
            }
        } else if (record instanceof JournalCodec.Completed completed) {
            Execution e = execution(completed.stateMachine(), completed.execution());
            if (e != null) {
                e.replayClose(completed.status(), completed.stopMillis(), completed.output(), completed.error(),
                        completed.cause());
            }
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
