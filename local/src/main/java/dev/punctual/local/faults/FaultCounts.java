package dev.punctual.local.faults;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Every fault the runtime injected, by call site ({@code handler.PutItem}, {@code bucket-function.Query},
 * {@code state-machine.DeleteItem}, {@code state-machine.Invoke}, ...) and error. Each one is
 * also logged, at INFO on {@code dev.punctual.local.faults}, on one line naming the error and the call
 * site and nothing of the request (which may hold item keys): {@code punctual local} shows these lines.
 */
public final class FaultCounts {

    private static final System.Logger LOG = System.getLogger(FaultCounts.class.getName());

    private final Map<String, Map<String, LongAdder>> counts = new ConcurrentHashMap<>();

    /** Counts and logs one injected fault. */
    void injected(String site, String error) {
        counts.computeIfAbsent(site, s -> new ConcurrentHashMap<>()).computeIfAbsent(error, e -> new LongAdder()).increment();
        LOG.log(System.Logger.Level.INFO, "Injected fault " + error + " at " + site);
    }

    /** Faults injected so far: call site → error → count, both sorted by name. */
    public Map<String, Map<String, Long>> bySite() {
        Map<String, Map<String, Long>> snapshot = new TreeMap<>();
        counts.forEach((site, errors) -> {
            Map<String, Long> bySite = new TreeMap<>();
            errors.forEach((error, count) -> bySite.put(error, count.sum()));
            snapshot.put(site, bySite);
        });
        return snapshot;
    }

    /** All faults injected so far. */
    public long total() {
        return counts.values().stream().flatMap(errors -> errors.values().stream()).mapToLong(LongAdder::sum).sum();
    }

    /** {@link #bySite()} as a JSON object. */
    public String toJson() {
        StringBuilder json = new StringBuilder("{");
        bySite().forEach((site, errors) -> {
            json.append(json.length() > 1 ? "," : "").append('"').append(site).append("\":{");
            int start = json.length();
            errors.forEach((error, count) -> json.append(json.length() > start ? "," : "").append('"').append(error)
                    .append("\":").append(count));
            json.append('}');
        });
        return json.append('}').toString();
    }
}
