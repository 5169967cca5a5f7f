package dev.punctual.local.modes;

import dev.punctual.statemachine.ExpiryMode;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@link ExpiryMode#PER_ITEM} on the local runtime: the handler starts executions of the expire-item
 * machine the runtime deploys anyway, so there is nothing more to wire; its pending work is the running
 * executions, indexed as the engine starts and closes them ({@link PendingIndex}).
 */
final class PerItemLocal implements LocalMode {

    @Override
    public Wired wire(Context context) {
        String stateMachineArn = context.expireItemArn();
        return new Wired(stateMachineArn, Map.of(), true, sources -> new RunningExecutions(sources, stateMachineArn));
    }

    /** Nothing beyond the shared variables: the handler starts executions of the machine they name. */
    @Override
    public Map<String, String> handlerEnvironment(URI dynamoDbEndpoint) {
        return Map.of();
    }

    /** The running executions of the expire-item machine, each one pending expiration. */
    private static final class RunningExecutions implements PendingWork {

        private final PendingIndex index;
        private final Sources sources;

        RunningExecutions(Sources sources, String stateMachineArn) {
            this.sources = sources;
            this.index = new PendingIndex(stateMachineArn);
            index.attach(sources.engine());
        }

        @Override
        public Map<String, Integer> countsByTable() {
            return index.countsByTable();
        }

        @Override
        public int countDueBefore(Instant instant) {
            return index.countBefore(instant, Integer.MAX_VALUE);
        }

        @Override
        public Page page(String table, String after, int limit) {
            List<PendingIndex.Pending> page = index.page(table, PendingIndex.Cursor.decode(after), limit + 1);
            List<Row> rows = new ArrayList<>(Math.min(limit, page.size()));
            for (PendingIndex.Pending pending : page.subList(0, Math.min(limit, page.size()))) {
                rows.add(new Row(pending.expireAt(), pending.table(), pending.key(), pending.ttl(), "execution",
                        pending.name(), pending.executionArn()));
            }
            String next = null;
            if (page.size() > limit) {
                PendingIndex.Pending last = page.get(limit - 1);
                next = new PendingIndex.Cursor(last.expireAt(), last.executionArn()).encode();
            }
            return new Page(rows, index.count(table), next);
        }

        @Override
        public void close() {
            sources.engine().removeListener(index);
        }
    }
}
