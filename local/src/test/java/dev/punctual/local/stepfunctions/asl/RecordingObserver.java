package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/** Records what a run reports, for assertions. */
final class RecordingObserver implements ExecutionObserver {

    record Event(String type, ObjectNode details, Instant timestamp) {
    }

    final List<Event> events = new CopyOnWriteArrayList<>();
    final List<Checkpoint> checkpoints = new CopyOnWriteArrayList<>();
    final AtomicReference<ExecutionOutcome> outcome = new AtomicReference<>();
    final List<ExecutionOutcome> completions = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(String type, ObjectNode details, Instant timestamp) {
        events.add(new Event(type, details, timestamp));
    }

    @Override
    public void onCheckpoint(Checkpoint checkpoint) {
        checkpoints.add(checkpoint);
    }

    @Override
    public void onCompleted(ExecutionOutcome result) {
        completions.add(result);
        outcome.set(result);
    }

    List<String> eventTypes() {
        return events.stream().map(Event::type).toList();
    }
}
