package dev.punctual.local.stepfunctions.asl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stepfunctions.asl.run.Checkpoint;
import dev.punctual.local.stepfunctions.asl.run.RunObserver;
import dev.punctual.local.stepfunctions.asl.run.RunOutcome;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/** Records what a run reports, for assertions. */
final class RecordingObserver implements RunObserver {

    record Event(String type, ObjectNode details, Instant timestamp) {
    }

    final List<Event> events = new CopyOnWriteArrayList<>();
    final List<Checkpoint> checkpoints = new CopyOnWriteArrayList<>();
    final AtomicReference<RunOutcome> outcome = new AtomicReference<>();
    final List<RunOutcome> completions = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(String type, ObjectNode details, Instant timestamp) {
        events.add(new Event(type, details, timestamp));
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
