package dev.punctual.local.runtime;

import dev.punctual.local.modes.LocalMode;
import dev.punctual.local.modes.PendingWork;
import dev.punctual.local.modes.WindowedParts;
import dev.punctual.local.stream.WatchedTable;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The mode a {@link LocalRuntime} runs every watched table in ({@link LocalRuntime.Options#mode()}), as
 * it is wired there: what the stream handler is told and starts, what {@code punctual local} prints, how
 * the console reads pending work and where deletes show. A question whose answer differs between modes
 * is asked here, not of the runtime; what only windowed mode has is {@link #windowed()}.
 */
public final class RuntimeMode {

    private final LocalMode.Wired wired;
    private final Function<WatchedTable, Map<String, String>> handlerEnvironment;

    /**
     * @param wired what the mode wired into the runtime
     * @param handlerEnvironment the whole environment the runtime gives a table's handler: the shared
     *     variables, the mode's own, the runtime's endpoints
     */
    RuntimeMode(LocalMode.Wired wired, Function<WatchedTable, Map<String, String>> handlerEnvironment) {
        this.wired = wired;
        this.handlerEnvironment = handlerEnvironment;
    }

    /** The state machine the stream handler starts executions of: expire-bucket when windowed, else expire-item. */
    public String stateMachineArn() {
        return wired.stateMachineArn();
    }

    /**
     * The environment the handler gets for one table: the same variables the CDK construct sets in
     * Lambda, with the Step Functions endpoint pointed at this runtime. A test builds a second handler
     * from it to play a duplicate delivery.
     */
    public Map<String, String> handlerEnvironment(WatchedTable table) {
        return handlerEnvironment.apply(table);
    }

    /** What {@code punctual local} prints about the mode, label to value, beyond its state machine. */
    public Map<String, String> facts() {
        return wired.facts();
    }

    /**
     * Whether each pending item is an open execution of {@link #stateMachineArn()} whose history records
     * its delete (per item); otherwise {@link Observations#deletions()} is where deletes show.
     */
    public boolean executionPerItem() {
        return wired.executionPerItem();
    }

    /** The pending work as the console lists it, read from {@code sources} the way this mode keeps it. */
    public PendingWork pendingWork(PendingWork.Sources sources) {
        return wired.pendingWork(sources);
    }

    /**
     * What windowed mode wires beyond what every mode has (its expire-bucket machine, its buckets'
     * phases); empty in any other mode.
     */
    public Optional<WindowedParts> windowed() {
        return wired.windowed();
    }
}
