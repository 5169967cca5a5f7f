package dev.punctual.peritem;

import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.TtlValue;
import dev.punctual.names.ItemExecutionName;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code expire-item} executions that may still be waiting for an item's old TTL, which a change
 * left stale: per-item mode stops them when cancellation is on ({@code cancelStale}).
 */
final class StaleExecutions {

    private StaleExecutions() {
    }

    /**
     * The executions that may be waiting for {@code oldTtl} at {@code now}: the chain's first execution,
     * and while more than a horizon remains, the successors that can be the live one by now. A chain
     * {@code n} hops long runs {@code <name>-h<j>} while between {@code (j-1)} and {@code j} horizons
     * (plus the part-horizon remainder, minus hop start-up delays) remain, so with {@code q} whole
     * horizons left the live successor is {@code -h<q>}, {@code -h<q+1>} or {@code -h<q+2>}.
     * Within the last horizon the chain's final successors are not stopped: where a chain began is
     * not recorded, so a chain cannot be told from a short wait there, and a stale final
     * execution's conditional delete finds a changed item and ends as Superseded anyway.
     */
    static List<String> of(String table, ItemKey key, TtlValue oldTtl, Instant now) {
        ItemExecutionName chain = ItemExecutionName.first(table, key, oldTtl);
        List<String> names = new ArrayList<>(4);
        names.add(chain.toString());
        Duration remaining = Duration.between(now, oldTtl.expireAt());
        if (remaining.compareTo(ExpiryWorkflow.HORIZON) >= 0) {
            long whole = remaining.dividedBy(ExpiryWorkflow.HORIZON);
            for (long hops = whole; hops <= whole + 2; hops++) {
                names.add(chain.successor(hops).toString());
            }
        }
        return names;
    }
}
