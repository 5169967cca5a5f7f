package dev.punctual.local.events;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.stream.EventPattern;
import dev.punctual.local.time.Timer;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The rules of the local runtime's event bus: an event put on the bus goes to the target of every
 * rule whose pattern (EventBridge syntax, {@link EventPattern}) matches it, as EventBridge routes it;
 * a scheduled rule's target gets a {@code Scheduled Event} at its rate.
 * Delivery is asynchronous, on the runtime's timer and an executor of its own, so a target never runs
 * on the thread that put the event. A target that throws is tried again as Lambda retries an
 * asynchronous invocation that failed: after {@link #RETRY_DELAYS} (one minute, then two more), then
 * the event is dropped with a warning. Delivery is at least once: a target must be idempotent.
 */
public final class EventRules implements AutoCloseable {

    /**
     * The pauses before each retry of a failed delivery: Lambda retries an asynchronous invocation
     * twice, about a minute and then two minutes apart, which is what a function target of an
     * EventBridge rule gets.
     */
    public static final List<Duration> RETRY_DELAYS = List.of(Duration.ofMinutes(1), Duration.ofMinutes(2));

    private static final System.Logger LOG = System.getLogger(EventRules.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Rule(String name, EventPattern pattern, Consumer<ObjectNode> target) {
    }

    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final Timer timer;
    private final Executor deliveries;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong failedAttempts = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong pending = new AtomicLong();
    private volatile boolean closed;

    /** @param deliveries runs the targets; one the caller owns and shuts down */
    public EventRules(Timer timer, Executor deliveries) {
        this.timer = Objects.requireNonNull(timer, "timer");
        this.deliveries = Objects.requireNonNull(deliveries, "deliveries");
    }

    /** Adds a rule: events matching {@code patternJson} go to {@code target}. */
    public EventRules add(String name, String patternJson, Consumer<ObjectNode> target) {
        rules.add(new Rule(name, EventPattern.parse(patternJson), Objects.requireNonNull(target, "target")));
        return this;
    }

    /**
     * Adds a scheduled rule: {@code target} gets an EventBridge {@code Scheduled Event} now and every
     * {@code rate} after, on the timer, delivered as any other event (later, retried, at least once).
     * EventBridge's own first tick comes one rate after the rule is created; this one comes at once, so
     * whatever the target catches up on is caught up on when the runtime starts. On a manual timer that
     * skips time ({@link dev.punctual.local.time.ManualTimer#skipToNextWork}) the ticks are polls: those due
     * on the way come once, at the skip's end.
     */
    public EventRules addSchedule(String name, Duration rate, String region, String account, Consumer<ObjectNode> target) {
        Rule rule = new Rule(name, null, Objects.requireNonNull(target, "target"));
        tick(rule, rate, region, account);
        return this;
    }

    private void tick(Rule rule, Duration rate, String region, String account) {
        if (closed) {
            return;
        }
        ObjectNode event = JSON.createObjectNode();
        event.put("version", "0");
        event.put("id", UUID.randomUUID().toString());
        event.put("detail-type", "Scheduled Event");
        event.put("source", "aws.events");
        event.put("account", account);
        event.put("time", timer.clock().instant().truncatedTo(ChronoUnit.SECONDS).toString());
        event.put("region", region);
        event.putArray("resources").add("arn:aws:events:" + region + ":" + account + ":rule/" + rule.name());
        event.putObject("detail");
        pending.incrementAndGet();
        schedule(rule, event, 0, Duration.ZERO);
        // A poll: when a test skips time, ticks that fell due on the way come once, at the skip's end.
        timer.schedulePoll(timer.clock().instant().plus(rate), () -> tick(rule, rate, region, account));
    }

    /** Stops the scheduled rules' ticks and the routing of new events; deliveries already scheduled still run if their executor does. */
    @Override
    public void close() {
        closed = true;
    }

    /** Whether any rule is listening at all: publishers with nothing to say to no one may skip the work. */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** Puts {@code event} on the bus: each matching rule's target gets it, later, at least once. */
    public void put(ObjectNode event) {
        for (Rule rule : rules) {
            if (!closed && rule.pattern().matches(event)) {
                pending.incrementAndGet();
                schedule(rule, event, 0, Duration.ZERO);
            }
        }
    }

    private void schedule(Rule rule, ObjectNode event, int attempt, Duration delay) {
        timer.schedule(timer.clock().instant().plus(delay), () -> deliveries.execute(() -> deliver(rule, event, attempt)));
    }

    private void deliver(Rule rule, ObjectNode event, int attempt) {
        try {
            rule.target().accept(event);
            delivered.incrementAndGet();
            pending.decrementAndGet();
        } catch (RuntimeException e) {
            failedAttempts.incrementAndGet();
            if (attempt < RETRY_DELAYS.size()) {
                LOG.log(System.Logger.Level.WARNING, "Rule " + rule.name() + ": target failed on event " + event.path("id").asText()
                        + " (" + e + "); retrying in " + RETRY_DELAYS.get(attempt).toSeconds() + " s");
                schedule(rule, event, attempt + 1, RETRY_DELAYS.get(attempt));
            } else {
                dropped.incrementAndGet();
                pending.decrementAndGet();
                LOG.log(System.Logger.Level.WARNING, "Rule " + rule.name() + ": target failed on event " + event.path("id").asText()
                        + " after " + (attempt + 1) + " attempts (" + e + "); the event is dropped");
            }
        }
    }

    /** Events matched and not yet delivered or dropped: waiting for their delivery or a retry. */
    public long pending() {
        return pending.get();
    }

    /** Deliveries that succeeded. */
    public long delivered() {
        return delivered.get();
    }

    /** Delivery attempts whose target threw (each retried, or dropped after the last). */
    public long failedAttempts() {
        return failedAttempts.get();
    }

    /** Events dropped after every retry failed. */
    public long dropped() {
        return dropped.get();
    }
}
