package dev.punctual.local.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.billing.DeletionLedger;
import dev.punctual.local.measure.Percentiles;
import dev.punctual.local.modes.IndexedPending;
import dev.punctual.local.retention.RetainedLog;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.stepfunctions.executions.ExecutionDescription;
import dev.punctual.local.stepfunctions.executions.ExecutionListener;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What just expired, for the console: the most recent expiries with their outcome and lag, the lag
 * of every delete per second over the last ten minutes (for the chart), and running counters. It
 * hears Punctual's conditional deletes from the {@link DeletionLedger}, the same in both modes, and
 * failed executions from the engine. It keeps keys, never item images.
 */
final class ExpiryRecorder implements DeletionLedger.Listener, ExecutionListener {

    /** Seconds of lag the chart covers. */
    static final int CHART_SECONDS = 600;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<ExecutionStatus> FAILURES = Set.of(ExecutionStatus.FAILED, ExecutionStatus.TIMED_OUT);

    /** Outcome of one expiry. */
    enum Outcome { Expired, Superseded, Failed }

    /**
     * One expiry.
     *
     * @param lagMillis deleted-at minus the TTL; {@code null} when there is no delete (failed)
     */
    record Expiry(String table, String key, String ttl, Instant at, Long lagMillis, Outcome outcome, String execution,
                  String error, String cause) {
    }

    /** The lag of the deletes made in one second. */
    record LagSecond(long epochSecond, long p50, long p99, int count) {
    }

    private final Clock clock;
    /** The expiries {@code /expired} can show, within {@code --retain expiries}. */
    private final RetainedLog<Expiry> recent;
    private final long[][] lagsBySlot = new long[CHART_SECONDS][];
    private final int[] lagCounts = new int[CHART_SECONDS];
    private final long[] slotSecond = new long[CHART_SECONDS];
    private final LongAdder expired = new LongAdder();
    private final LongAdder early = new LongAdder();
    private final LongAdder superseded = new LongAdder();
    private final LongAdder failedExecutions = new LongAdder();

    ExpiryRecorder(Clock clock, Retention recentExpiries) {
        this.clock = clock;
        this.recent = new RetainedLog<>(recentExpiries);
        Arrays.fill(slotSecond, -1);
    }

    @Override
    public void deleted(String table, Map<String, AttributeValue> key, String ttl, Instant at) {
        Long lag = lagMillis(ttl, at);
        expired.increment();
        if (lag != null && lag < 0) {
            early.increment();
        }
        synchronized (this) {
            if (lag != null) {
                addLag(at.getEpochSecond(), lag);
            }
            remember(new Expiry(table, keyJson(key), ttl, at, lag, Outcome.Expired, null, null, null));
        }
    }

    @Override
    public void superseded(String table, Map<String, AttributeValue> key, String ttl, Instant at) {
        superseded.increment();
        synchronized (this) {
            remember(new Expiry(table, keyJson(key), ttl, at, null, Outcome.Superseded, null, null, null));
        }
    }

    @Override
    public void started(ExecutionDescription execution) {
        // Only closings matter here.
    }

    @Override
    public void closed(ExecutionDescription execution) {
        if (!FAILURES.contains(execution.status())) {
            return;
        }
        failedExecutions.increment();
        JsonNode input = input(execution.input());
        String table = input.path(ExpiryWorkflow.TABLE).asText(null);
        JsonNode key = input.get(ExpiryWorkflow.KEY);
        synchronized (this) {
            remember(new Expiry(table, key == null ? null : key.toString(), input.path(ExpiryWorkflow.TTL).asText(null),
                    execution.stopDate(), null, Outcome.Failed, execution.executionArn(), execution.error(),
                    execution.cause()));
        }
    }

    /** The most recent expiries, newest first, at most {@code limit}, optionally of one table. */
    synchronized List<Expiry> recent(String table, int limit) {
        recent.trim(clock.instant());
        List<Expiry> result = new ArrayList<>();
        for (Iterator<Expiry> newestFirst = recent.newestFirst(); newestFirst.hasNext(); ) {
            Expiry expiry = newestFirst.next();
            if (result.size() == limit) {
                break;
            }
            if (table == null || table.equals(expiry.table())) {
                result.add(expiry);
            }
        }
        return result;
    }

    /** Lag p50 and p99 of each second with deletes, over the last {@link #CHART_SECONDS} seconds, oldest first. */
    synchronized List<LagSecond> lagBySecond() {
        long now = clock.instant().getEpochSecond();
        List<LagSecond> seconds = new ArrayList<>();
        for (long second = now - CHART_SECONDS + 1; second <= now; second++) {
            int slot = slot(second);
            if (slotSecond[slot] != second || lagCounts[slot] == 0) {
                continue;
            }
            long[] lags = Arrays.copyOf(lagsBySlot[slot], lagCounts[slot]);
            Arrays.sort(lags);
            seconds.add(new LagSecond(second, Percentiles.nearestRank(lags, 50), Percentiles.nearestRank(lags, 99), lags.length));
        }
        return seconds;
    }

    /** Items deleted in the last minute. */
    synchronized int expiredInLastMinute() {
        long now = clock.instant().getEpochSecond();
        int count = 0;
        for (long second = now - 59; second <= now; second++) {
            int slot = slot(second);
            if (slotSecond[slot] == second) {
                count += lagCounts[slot];
            }
        }
        return count;
    }

    long expired() {
        return expired.sum();
    }

    long early() {
        return early.sum();
    }

    long superseded() {
        return superseded.sum();
    }

    long failedExecutions() {
        return failedExecutions.sum();
    }

    private void remember(Expiry expiry) {
        // Kept by when it was recorded: a failed execution's stop time may be older than the last expiry's.
        recent.add(expiry, clock.instant());
    }

    private void addLag(long second, long lag) {
        int slot = slot(second);
        if (slotSecond[slot] != second) {
            slotSecond[slot] = second;
            lagCounts[slot] = 0;
        }
        long[] lags = lagsBySlot[slot];
        if (lags == null || lags.length == lagCounts[slot]) {
            lagsBySlot[slot] = lags = Arrays.copyOf(lags == null ? new long[0] : lags, Math.max(16, lagCounts[slot] * 2));
        }
        lags[lagCounts[slot]++] = lag;
    }

    private static int slot(long second) {
        return (int) Math.floorMod(second, (long) CHART_SECONDS);
    }

    private static Long lagMillis(String ttl, Instant at) {
        if (ttl == null) {
            return null;
        }
        try {
            long ttlMillis = new BigDecimal(ttl).movePointRight(3).longValue();
            return at.toEpochMilli() - ttlMillis;
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }

    private static String keyJson(Map<String, AttributeValue> key) {
        return IndexedPending.keyJson(key);
    }

    private static JsonNode input(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }
}
