package dev.punctual.local.billing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what AWS would bill for Punctual's own work on the local runtime: Lambda invocations and
 * their duration at the configured memory, and DynamoDB request units, split into Punctual's own
 * calls and the expired items' deletes (which every approach pays). What the engine bills (state
 * transitions, StartExecution calls, Express requests and GB-seconds, the execution log's bytes) the
 * engine counts ({@link #snapshot} takes it as an argument).
 *
 * <p>Lambda duration is the wall time of each in-process invocation: a local proxy for billed
 * duration, with none of Lambda's start-up and with this machine's DynamoDB Local behind each call.
 */
public final class CostMeter {

    private final LongAdder lambdaInvocations = new LongAdder();
    private final DoubleAdder lambdaGbSeconds = new DoubleAdder();
    private final DoubleAdder writeUnits = new DoubleAdder();
    private final DoubleAdder readUnits = new DoubleAdder();
    private final DoubleAdder itemDeleteWriteUnits = new DoubleAdder();
    private final AtomicLong itemsDeleted = new AtomicLong();
    private final LongAdder expiryEvents = new LongAdder();

    /** One invocation of a function configured with {@code memoryMb} that ran for {@code wallTime}. */
    public void invocation(int memoryMb, Duration wallTime) {
        lambdaInvocations.increment();
        lambdaGbSeconds.add(memoryMb / 1024.0 * wallTime.toNanos() / 1e9);
    }

    /** Request units of one of Punctual's own DynamoDB calls (the schedule index, reads). */
    public void punctualUnits(double write, double read) {
        writeUnits.add(write);
        readUnits.add(read);
    }

    /** Write units of one successful delete of an expired item. */
    public void itemDelete(double write) {
        itemDeleteWriteUnits.add(write);
        itemsDeleted.incrementAndGet();
    }

    /** One {@code ItemExpired} entry of {@code bytes} accepted by EventBridge: billed per 64 KB chunk. */
    public void expiryEvent(int bytes) {
        expiryEvents.add(Math.max(1, (bytes + Prices.EVENT_BILLING_CHUNK_BYTES - 1) / Prices.EVENT_BILLING_CHUNK_BYTES));
    }

    /**
     * What the Step Functions engine counted.
     *
     * @param transitions Standard state transitions, retries included
     * @param startExecutions StartExecution calls
     * @param openExecutionsMax the peak of open Standard executions
     * @param expressRequests Express executions started
     * @param expressGbSeconds Express duration as billed (100 ms steps, 64 MB steps)
     * @param logBytes bytes the state machines' executions logged (CloudWatch Logs ingestion)
     */
    public record EngineCounts(long transitions, long startExecutions, int openExecutionsMax, long expressRequests,
                               double expressGbSeconds, long logBytes) {
    }

    /** The counts so far, with the engine's. */
    public Snapshot snapshot(EngineCounts engine) {
        return new Snapshot(engine.transitions(), engine.startExecutions(), engine.openExecutionsMax(), engine.expressRequests(),
                engine.expressGbSeconds(), engine.logBytes(), lambdaInvocations.sum(), lambdaGbSeconds.sum(),
                writeUnits.sum(), readUnits.sum(), itemDeleteWriteUnits.sum(), itemsDeleted.get(), expiryEvents.sum());
    }

    /**
     * Counts at one moment; {@link #minus} gives a run's share. {@code expiryEvents} counts billed
     * {@code ItemExpired} events (64 KB chunks), which are opt-in in AWS and priced apart.
     */
    public record Snapshot(long transitions, long startExecutions, int openExecutionsMax, long expressRequests,
                           double expressGbSeconds, long logBytes, long lambdaInvocations,
                           double lambdaGbSeconds, double writeUnits, double readUnits, double itemDeleteWriteUnits,
                           long itemsDeleted, long expiryEvents) {

        /** What happened between {@code earlier} and this; the peak is kept as measured since then. */
        public Snapshot minus(Snapshot earlier) {
            return new Snapshot(transitions - earlier.transitions, startExecutions - earlier.startExecutions,
                    openExecutionsMax, expressRequests - earlier.expressRequests,
                    expressGbSeconds - earlier.expressGbSeconds, logBytes - earlier.logBytes,
                    lambdaInvocations - earlier.lambdaInvocations,
                    lambdaGbSeconds - earlier.lambdaGbSeconds, writeUnits - earlier.writeUnits,
                    readUnits - earlier.readUnits, itemDeleteWriteUnits - earlier.itemDeleteWriteUnits,
                    itemsDeleted - earlier.itemsDeleted, expiryEvents - earlier.expiryEvents);
        }

        /** USD of Step Functions: Standard transitions, Express requests and duration. */
        public double stepFunctionsUsd() {
            return transitions * Prices.STATE_TRANSITION + expressRequests * Prices.EXPRESS_REQUEST
                    + expressGbSeconds * Prices.EXPRESS_GB_SECOND;
        }

        /** USD of Lambda: requests and duration. */
        public double lambdaUsd() {
            return lambdaInvocations * Prices.LAMBDA_REQUEST + lambdaGbSeconds * Prices.LAMBDA_GB_SECOND;
        }

        /** USD of Punctual's own DynamoDB request units. */
        public double dynamoDbUsd() {
            return writeUnits * Prices.WRITE_REQUEST_UNIT + readUnits * Prices.READ_REQUEST_UNIT;
        }

        /** USD of CloudWatch Logs ingestion of the state machines' execution logs. */
        public double logsUsd() {
            return logBytes / (1024.0 * 1024 * 1024) * Prices.LOG_INGESTION_GB;
        }

        /** USD of Punctual's own work: Step Functions, Lambda, its own DynamoDB units and execution logs. */
        public double punctualUsd() {
            return stepFunctionsUsd() + lambdaUsd() + dynamoDbUsd() + logsUsd();
        }

        /** USD of the expired items' own deletes. */
        public double itemDeleteUsd() {
            return itemDeleteWriteUnits * Prices.WRITE_REQUEST_UNIT;
        }

        /** USD of the {@code ItemExpired} events, when they are on. */
        public double expiryEventsUsd() {
            return expiryEvents * Prices.CUSTOM_EVENT;
        }

        /** The {@code cost} object of {@code bench --json}, per million of {@code expiries}. */
        public String toJson(long expiries) {
            double perMillion = expiries == 0 ? 0 : 1_000_000.0 / expiries;
            return String.format(java.util.Locale.ROOT,
                    "{\"transitions\":%d,\"startExecutions\":%d,\"openExecutionsMax\":%d,\"expressRequests\":%d,"
                            + "\"expressGbSeconds\":%.4f,\"logBytes\":%d,\"lambdaInvocations\":%d,"
                            + "\"lambdaGbSeconds\":%.3f,\"lambdaGbSecondsNote\":\"wall time of in-process invocations at the"
                            + " configured memory: a local proxy for billed duration\",\"writeUnits\":%.1f,\"readUnits\":%.1f,"
                            + "\"usdPerMillion\":%.4f,\"itemDeleteUsdPerMillion\":%.4f,\"expiryEvents\":%d,"
                            + "\"expiryEventsUsdPerMillion\":%.4f,\"usdPerMillionByService\":{\"stepFunctions\":%.4f,"
                            + "\"lambda\":%.4f,\"dynamoDb\":%.4f,\"cloudWatchLogs\":%.4f}}",
                    transitions, startExecutions, openExecutionsMax, expressRequests, expressGbSeconds, logBytes,
                    lambdaInvocations, lambdaGbSeconds, writeUnits, readUnits,
                    punctualUsd() * perMillion, itemDeleteUsd() * perMillion, expiryEvents, expiryEventsUsd() * perMillion,
                    stepFunctionsUsd() * perMillion, lambdaUsd() * perMillion, dynamoDbUsd() * perMillion,
                    logsUsd() * perMillion);
        }

        /** Lines for the text report. */
        public String toText(long expiries) {
            double perMillion = expiries == 0 ? 0 : 1_000_000.0 / expiries;
            return String.format(java.util.Locale.ROOT, String.join("%n",
                    "transitions        %d",
                    "startExecutions    %d",
                    "open executions    %d at most",
                    "express            %d executions, %.2f GB-s; execution logs %d bytes",
                    "lambda             %d invocations, %.2f GB-s (local wall time)",
                    "dynamodb units     %.0f write, %.0f read (Punctual's own)",
                    "cost               $%.2f per million expiries (+ $%.2f for the items' own deletes)",
                    "expiry events      %d, $%.2f per million expiries (opt-in in AWS)"),
                    transitions, startExecutions, openExecutionsMax, expressRequests, expressGbSeconds, logBytes,
                    lambdaInvocations, lambdaGbSeconds, writeUnits, readUnits,
                    punctualUsd() * perMillion, itemDeleteUsd() * perMillion, expiryEvents, expiryEventsUsd() * perMillion);
        }
    }
}
