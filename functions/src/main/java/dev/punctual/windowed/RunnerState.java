package dev.punctual.windowed;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.AttributeType;
import dev.punctual.expiry.ItemKey;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where a bucket's runner is between two of its steps: the part of the runner's state
 * ({@code run-bucket.asl.json}) that the bucket function hands back to itself through the runner, under
 * {@link BucketWorkflow#RUNNER}. The runner waits until {@link #at}, then invokes the function with it.
 *
 * @param phase what the next step does
 * @param target the due second that step is about
 * @param at when the runner invokes it: a second before {@code target} to prepare, {@code target} itself to delete
 * @param entries the items of {@code target} read when it was prepared; {@code null} when there were too
 *     many to carry ({@link #MAX_CARRIED_BYTES}): the delete step reads them again
 * @param next the due second after {@code target} that the prepare step's read found, or the bucket's
 *     end when there is none
 * @param counts what the runner has done so far
 */
public record RunnerState(Phase phase, long target, Instant at, List<IndexEntry> entries, long next, Counts counts) {

    /**
     * Bytes of entries the state carries at most. Step Functions caps a state's payload at 256 KB; the
     * margin holds the rest of the state. A second with more is read again at its delete step.
     */
    static final int MAX_CARRIED_BYTES = 200 * 1024;

    /** What a runner step does. */
    public enum Phase {
        /** Seal the target second (and the minute up to it), read its entries and what second comes next. */
        PREPARE,
        /** At the target second: delete its items, then go on to the next second. */
        DELETE
    }

    /** What a runner has done: items read, deleted and found superseded, and seconds worked. */
    public record Counts(int items, int expired, int superseded, int seconds) {

        /** Nothing yet. */
        public static final Counts NONE = new Counts(0, 0, 0, 0);

        Counts plus(int secondItems, int secondExpired, int secondSuperseded) {
            return new Counts(items + secondItems, expired + secondExpired, superseded + secondSuperseded, seconds + 1);
        }
    }

    public RunnerState {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(counts, "counts");
        entries = entries == null ? null : List.copyOf(entries);
    }

    /** {@code entries}, or {@code null} when they would not fit in the runner's state. */
    static List<IndexEntry> carried(List<IndexEntry> entries) {
        long bytes = 0;
        for (IndexEntry entry : entries) {
            bytes += entry.key().toDynamoJson().length() + entry.ttl().length() + 24;
            if (bytes > MAX_CARRIED_BYTES) {
                return null;
            }
        }
        return entries;
    }

    /** The state as the runner carries it: plain maps, lists, strings and numbers, as Lambda serializes them. */
    public Map<String, Object> toPayload() {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put(BucketWorkflow.RUNNER_PHASE, phase.name().toLowerCase(java.util.Locale.ROOT));
        payload.put(BucketWorkflow.RUNNER_TARGET, target);
        payload.put(BucketWorkflow.RUNNER_AT, DateTimeFormatter.ISO_INSTANT.format(at));
        payload.put(BucketWorkflow.RUNNER_NEXT, next);
        if (entries != null) {
            List<Map<String, Object>> list = new ArrayList<>(entries.size());
            for (IndexEntry entry : entries) {
                Map<String, Object> key = new LinkedHashMap<>();
                entry.key().attributes().forEach((name, value) -> key.put(name, Map.of(value.type().name(), value.text())));
                list.add(Map.of(BucketWorkflow.ENTRY_KEY, key, BucketWorkflow.ENTRY_TTL, entry.ttl()));
            }
            payload.put(BucketWorkflow.RUNNER_ENTRIES, list);
        }
        payload.put(BucketWorkflow.ITEMS, counts.items());
        payload.put(BucketWorkflow.EXPIRED, counts.expired());
        payload.put(BucketWorkflow.SUPERSEDED, counts.superseded());
        payload.put(BucketWorkflow.SECONDS, counts.seconds());
        return payload;
    }

    /**
     * Reads the state back from a runner's payload ({@code null} for a runner's first step).
     *
     * @throws IllegalArgumentException naming the field that is missing or malformed
     */
    public static RunnerState fromPayload(Object value) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map<?, ?> payload)) {
            throw new IllegalArgumentException("runner state must be an object, got " + value);
        }
        Object phaseText = payload.get(BucketWorkflow.RUNNER_PHASE);
        Phase phase;
        try {
            phase = Phase.valueOf(String.valueOf(phaseText).toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("runner field '" + BucketWorkflow.RUNNER_PHASE
                    + "' must be 'prepare' or 'delete', got " + phaseText, e);
        }
        Instant at;
        try {
            at = Instant.parse(String.valueOf(payload.get(BucketWorkflow.RUNNER_AT)));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("runner field '" + BucketWorkflow.RUNNER_AT + "' must be an RFC 3339 instant, got "
                    + payload.get(BucketWorkflow.RUNNER_AT), e);
        }
        List<IndexEntry> entries = null;
        long target = number(payload, BucketWorkflow.RUNNER_TARGET);
        if (payload.get(BucketWorkflow.RUNNER_ENTRIES) instanceof List<?> list) {
            entries = new ArrayList<>(list.size());
            for (Object item : list) {
                entries.add(entry(item, target));
            }
        }
        return new RunnerState(phase, target, at, entries, number(payload, BucketWorkflow.RUNNER_NEXT),
                new Counts((int) number(payload, BucketWorkflow.ITEMS), (int) number(payload, BucketWorkflow.EXPIRED),
                        (int) number(payload, BucketWorkflow.SUPERSEDED), (int) number(payload, BucketWorkflow.SECONDS)));
    }

    private static IndexEntry entry(Object item, long due) {
        if (!(item instanceof Map<?, ?> fields) || !(fields.get(BucketWorkflow.ENTRY_KEY) instanceof Map<?, ?> key)
                || !(fields.get(BucketWorkflow.ENTRY_TTL) instanceof String ttl)) {
            throw new IllegalArgumentException("runner entry must be {key, ttl}, got " + item);
        }
        Map<String, AttributeText> attributes = new LinkedHashMap<>();
        key.forEach((name, typed) -> {
            if (!(typed instanceof Map<?, ?> one) || one.size() != 1) {
                throw new IllegalArgumentException("runner entry key attribute " + name + " must be {type: text}, got " + typed);
            }
            Map.Entry<?, ?> value = one.entrySet().iterator().next();
            AttributeType type;
            try {
                type = AttributeType.valueOf(String.valueOf(value.getKey()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("runner entry key attribute " + name + " has an unknown type " + value.getKey(), e);
            }
            attributes.put(String.valueOf(name), new AttributeText(type, String.valueOf(value.getValue())));
        });
        return new IndexEntry(ItemKey.of(attributes), ttl, due);
    }

    private static long number(Map<?, ?> payload, String field) {
        if (!(payload.get(field) instanceof Number number)) {
            throw new IllegalArgumentException("runner field '" + field + "' must be a number, got " + payload.get(field));
        }
        return number.longValue();
    }
}
