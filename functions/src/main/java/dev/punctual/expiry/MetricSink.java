package dev.punctual.expiry;

import java.util.Map;

/**
 * Where the expiry metrics go: embedded metric format log lines in Lambda, memory in the local runtime
 * and in tests. Implementations are called from the batch's worker threads at once and must be
 * thread-safe; {@link #flush()} is called once per batch, after every record is done.
 */
public interface MetricSink {

    /** The units the expiry metrics use. */
    enum Unit {
        MILLISECONDS,
        COUNT
    }

    /** A sink that drops everything: for a handler outside Lambda that was given none. */
    MetricSink DISCARD = new MetricSink() {
        @Override
        public void add(String name, double value, Unit unit, Map<String, String> dimensions) {
        }

        @Override
        public void flush() {
        }
    };

    /** One data point of metric {@code name} with exactly these {@code dimensions}. */
    void add(String name, double value, Unit unit, Map<String, String> dimensions);

    /** Publishes what was added since the last flush. */
    void flush();
}
