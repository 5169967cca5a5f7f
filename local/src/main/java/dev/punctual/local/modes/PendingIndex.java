package dev.punctual.local.modes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionListener;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.stepfunctions.executions.Page;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Per-item mode's pending expirations, sorted by expiry: the running executions of the expire-item
 * state machine, indexed as the engine starts and closes them, so a page of a million costs a seek
 * and a page's worth of steps, never a sort. Started on a runtime that already holds executions (a
 * data directory), it reads the running ones once.
 */
final class PendingIndex implements ExecutionListener {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Sorted by expiry, then by execution ARN so the order is total. */
    private static final Comparator<Pending> ORDER = Comparator.comparing(Pending::expireAt).thenComparing(Pending::executionArn);

    /** One pending expiration. */
    record Pending(String executionArn, String name, String table, String key, String ttl, Instant expireAt) {
    }

    private final String stateMachineArn;
    private final NavigableMap<Pending, Pending> all = new ConcurrentSkipListMap<>(ORDER);
    private final Map<String, NavigableMap<Pending, Pending>> byTable = new ConcurrentHashMap<>();
    private final Map<String, Pending> byArn = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    PendingIndex(String stateMachineArn) {
        this.stateMachineArn = stateMachineArn;
    }

    /** Listens to {@code engine}, then reads the executions already running. */
    void attach(StepFunctionsEngine engine) {
        engine.addListener(this);
        String token = null;
        do {
            Page<ExecutionSummary> page = engine.listExecutions(stateMachineArn, ExecutionStatus.RUNNING, 1000, token);
            for (ExecutionSummary summary : page.items()) {
                ExecutionDescription description = engine.describeExecution(summary.executionArn());
                if (description.status() == ExecutionStatus.RUNNING) {
                    started(description);
                }
            }
            token = page.nextToken();
        } while (token != null);
    }

    @Override
    public void started(ExecutionDescription execution) {
        if (!stateMachineArn.equals(execution.stateMachineArn()) || byArn.containsKey(execution.executionArn())) {
            return;
        }
        Pending pending = parse(execution);
        if (pending == null || byArn.putIfAbsent(pending.executionArn(), pending) != null) {
            return;
        }
        all.put(pending, pending);
        byTable.computeIfAbsent(pending.table(), t -> new ConcurrentSkipListMap<>(ORDER)).put(pending, pending);
        counts.computeIfAbsent(pending.table(), t -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void closed(ExecutionDescription execution) {
        Pending pending = byArn.remove(execution.executionArn());
        if (pending == null) {
            return;
        }
        all.remove(pending);
        NavigableMap<Pending, Pending> table = byTable.get(pending.table());
        if (table != null) {
            table.remove(pending);
        }
        counts.get(pending.table()).decrementAndGet();
    }

    /** Pending expirations per table. */
    Map<String, Integer> countsByTable() {
        Map<String, Integer> result = new java.util.TreeMap<>();
        counts.forEach((table, count) -> {
            if (count.get() > 0) {
                result.put(table, count.get());
            }
        });
        return result;
    }

    /** All pending expirations, or those of {@code table}. */
    int count(String table) {
        if (table == null) {
            return byArn.size();
        }
        AtomicInteger count = counts.get(table);
        return count == null ? 0 : count.get();
    }

    /** Pending expirations whose expiry is before {@code instant} (overdue ones, for the missed counter). */
    int countBefore(Instant instant, int atMost) {
        int count = 0;
        for (Pending pending : all.keySet()) {
            if (!pending.expireAt().isBefore(instant) || count == atMost) {
                break;
            }
            count++;
        }
        return count;
    }

    /**
     * Up to {@code limit} pending expirations of {@code table} ({@code null}: every table), in expiry
     * order, after the one {@code after} names ({@code null}: from the first).
     */
    List<Pending> page(String table, Cursor after, int limit) {
        NavigableMap<Pending, Pending> view = table == null ? all : byTable.getOrDefault(table, new ConcurrentSkipListMap<>(ORDER));
        if (after != null) {
            view = view.tailMap(new Pending(after.executionArn(), null, null, null, null, after.expireAt()), false);
        }
        List<Pending> items = new ArrayList<>(limit);
        for (Pending pending : view.keySet()) {
            if (items.size() == limit) {
                break;
            }
            items.add(pending);
        }
        return items;
    }

    /** Where a page ends: the last item's expiry and execution. */
    record Cursor(Instant expireAt, String executionArn) {

        String encode() {
            return expireAt.toEpochMilli() + "~" + executionArn;
        }

        /** The cursor {@link #encode} wrote; {@code null} for none, an error for one it did not write. */
        static Cursor decode(String text) {
            if (text == null || text.isEmpty()) {
                return null;
            }
            int separator = text.indexOf('~');
            try {
                return new Cursor(Instant.ofEpochMilli(Long.parseLong(text.substring(0, separator))), text.substring(separator + 1));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("'after' is not a cursor this console returned: " + text);
            }
        }
    }

    private static Pending parse(ExecutionDescription execution) {
        JsonNode input;
        try {
            input = JSON.readTree(execution.input());
        } catch (IOException e) {
            return null;
        }
        JsonNode expireAt = input.get(ExpiryWorkflow.EXPIRE_AT);
        if (expireAt == null || !expireAt.isTextual()) {
            return null;
        }
        Instant instant;
        try {
            instant = Instant.parse(expireAt.asText());
        } catch (RuntimeException e) {
            return null;
        }
        return new Pending(execution.executionArn(), execution.name(), input.path(ExpiryWorkflow.TABLE).asText(""),
                input.path(ExpiryWorkflow.KEY).toString(), input.path(ExpiryWorkflow.TTL).asText(""), instant);
    }
}
