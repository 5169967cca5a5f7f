package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.stepfunctions.asl.run.RunObserver;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Records what a run reports, for assertions. Events are numbered as an execution's history numbers
 * them, after its {@code ExecutionStarted} (event 1), which the run does not report.
 */
final class RecordingObserver implements RunObserver {

    record Event(String type, ObjectNode details, Instant timestamp) {
    }

    final List<Event> events = new CopyOnWriteArrayList<>();
    final List<Checkpoint> checkpoints = new CopyOnWriteArrayList<>();
    final AtomicReference<RunOutcome> outcome = new AtomicReference<>();
    final List<RunOutcome> completions = new CopyOnWriteArrayList<>();

    @Override
    public synchronized long onEvent(String type, ObjectNode details, Instant timestamp) {
        events.add(new Event(type, details, timestamp));
        return events.size() + 1;
    }

    @Override
    public void onCheckpoint(Checkpoint checkpoint) {
        checkpoints.add(checkpoint);
    }

    @Override
    public void onCompleted(RunOutcome result) {
        completions.add(result);
        outcome.set(result);
    }

    List<String> eventTypes() {
        return events.stream().map(Event::type).toList();
    }
}
