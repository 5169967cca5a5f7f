package dev.punctual.events;

import dev.punctual.expiry.Sleeper;
import dev.punctual.statemachine.ExpiryEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * Publishes a batch's events: {@link ExpiryEvents#MAX_ENTRIES_PER_CALL} per call, and the entries a
 * call did not accept again, with exponential backoff and full jitter, up to {@link #MAX_ATTEMPTS}
 * tries each. What is still not accepted then is returned, so its records are reported for retry.
 * An event may be published twice (a call accepted it but the answer was lost, or a later record of
 * its batch failed): consumers deduplicate by the detail's {@code id}.
 */
public final class EventPublisher {

    /** Tries per entry within one invocation; the event source mapping's retries come after. */
    public static final int MAX_ATTEMPTS = 4;
    /** The first backoff's ceiling; it doubles per attempt (so at most 0.1 + 0.2 + 0.4 s per batch). */
    public static final Duration FIRST_BACKOFF = Duration.ofMillis(100);

    private final EventBus bus;
    private final Sleeper sleeper;
    private final DoubleSupplier jitter;

    /**
     * @param jitter uniform in [0, 1): the fraction of each backoff ceiling actually waited
     */
    public EventPublisher(EventBus bus, Sleeper sleeper, DoubleSupplier jitter) {
        this.bus = Objects.requireNonNull(bus, "bus");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        this.jitter = Objects.requireNonNull(jitter, "jitter");
    }

    /** The outcome of a batch: records whose events were not accepted, and the last error code of each. */
    public record Outcome(Map<String, String> unpublished, int retriedEntries) {
    }

    /** Publishes {@code entries}; returns those never accepted. */
    public Outcome publish(List<EventEntry> entries) {
        List<EventEntry> pending = entries;
        Map<String, String> lastError = new LinkedHashMap<>();
        int retried = 0;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS && !pending.isEmpty(); attempt++) {
            if (attempt > 1) {
                retried += pending.size();
                pause(attempt);
            }
            List<EventEntry> refused = new ArrayList<>();
            lastError.clear();
            for (int from = 0; from < pending.size(); from += ExpiryEvents.MAX_ENTRIES_PER_CALL) {
                List<EventEntry> call = pending.subList(from, Math.min(pending.size(), from + ExpiryEvents.MAX_ENTRIES_PER_CALL));
                List<String> errors = bus.put(call);
                for (int i = 0; i < call.size(); i++) {
                    if (errors.get(i) != null) {
                        refused.add(call.get(i));
                        lastError.put(call.get(i).sequenceNumber(), errors.get(i));
                    }
                }
            }
            pending = refused;
        }
        Map<String, String> unpublished = new LinkedHashMap<>();
        pending.forEach(entry -> unpublished.putIfAbsent(entry.sequenceNumber(), lastError.get(entry.sequenceNumber())));
        return new Outcome(unpublished, retried);
    }

    private void pause(int attempt) {
        long ceiling = FIRST_BACKOFF.toMillis() << (attempt - 2);
        try {
            sleeper.sleep(Duration.ofMillis((long) (ceiling * jitter.getAsDouble())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while backing off from PutEvents", e);
        }
    }
}
