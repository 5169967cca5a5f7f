package dev.punctual.local.modes;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.punctual.functions.ExpirySettings;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.stepfunctions.executions.ExecutionStatus;
import dev.punctual.local.stepfunctions.executions.ExecutionSummary;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.ExpiryMode;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What one {@link ExpiryMode} wires into the local runtime, as the CDK construct deploys it in AWS: its
 * tables, its state machine and its functions, what the stream handler is told beyond the shared
 * environment, and how the console reads its pending work. The runtime wires everything shared (DynamoDB
 * Local, the engine and its API, the expire-item machine, the stream poller) and asks the mode for the
 * rest. {@link LocalModes} registers each mode.
 */
public interface LocalMode {

    /** Wires the mode into a starting runtime. */
    Wired wire(Context context);

    /**
     * The variables the stream handler is told beyond the shared ones, for a runtime whose DynamoDB Local
     * listens at {@code dynamoDbEndpoint}: known without a running runtime, so a dead letter is redriven
     * through the same environment the runtime gave its handler.
     */
    Map<String, String> handlerEnvironment(URI dynamoDbEndpoint);

    /** What the runtime offers a mode while it starts. */
    interface Context {

        /** The expire-item state machine, which the runtime deploys in every mode. */
        String expireItemArn();

        /** Creates the state machine, or updates it on a data directory that holds it; its ARN. */
        String deploy(String name, String definition);

        /**
         * As {@link #deploy}, for an Express state machine logging its errors (its log is the only record
         * its executions leave), as the construct deploys one.
         */
        String deployExpress(String name, String definition);

        /** The ARN of the in-process function {@code name}, as a definition names it. */
        String functionArn(String name);

        /**
         * Serves {@code handler} as the in-process function {@code name} that Task states invoke, billed
         * at {@code memoryMb}, with Lambda's payload conversion between JSON and maps.
         */
        void function(String name, int memoryMb, RequestHandler<Map<String, Object>, Map<String, Object>> handler);

        /** The runtime's DynamoDB client, to create the mode's tables with. */
        DynamoDbClient dynamoDb();

        /**
         * Creates an on-demand table keyed by two strings, as the construct creates Punctual's own tables in
         * AWS; false, creating nothing, when a data directory from an earlier run already holds it.
         */
        boolean createTable(String name, String partitionKey, String sortKey);

        /**
         * What the mode's function {@code caller} runs on here, as Lambda gives it in AWS: configured by
         * {@code settings}; Punctual's own DynamoDB client (metered for the cost report), failing as the
         * runtime's {@code --dynamodb-fault} says at call sites named {@code caller.<Operation>}; the
         * runtime's clock, and waits on its timer; and the in-process route to the Step Functions API
         * unless functions go over HTTP.
         */
        FunctionParts functionParts(ExpirySettings settings, String caller);

        /**
         * An EventBridge rule on the runtime's bus, as the construct creates one: events matching
         * {@code pattern} (Step Functions' status changes among them) invoke the in-process function
         * {@code function} asynchronously, retried as Lambda retries such an invocation.
         */
        void eventRule(String name, String pattern, String function);

        /** A scheduled EventBridge rule: the in-process {@code function} gets a scheduled event every {@code rate}. */
        void scheduleRule(String name, Duration rate, String function);

        URI stepFunctionsEndpoint();

        URI dynamoDbEndpoint();

        /** Closes {@code closeable} with the runtime, before what was registered earlier. */
        <T extends AutoCloseable> T register(T closeable);

        /**
         * Windowed mode's bucket delete concurrency: deletes the bucket function has in flight at once, as the
         * construct's {@code bucketDeleteConcurrency} sets it in AWS (same default).
         */
        int bucketDeleteConcurrency();

        /** The runtime's timer, for the mode's own housekeeping; actions scheduled on it must be short. */
        Timer timer();

        /** How much of {@code kind} of past the runtime keeps ({@code --retain}). */
        Retention retention(Retained kind);

        /**
         * Punctual's in-process DynamoDB client for the runtime's own housekeeping, which AWS does for itself
         * (native TTL): neither billed in the cost report nor failing as {@code --dynamodb-fault} says.
         */
        DynamoDbClient housekeepingDynamoDb();

        /**
         * A thread of the mode's own, named {@code name}, owned and closed by the runtime; its work counts
         * as the runtime's, so a runtime on a manual timer is settled only once it is done.
         */
        ExecutorService ownThread(String name);

        /** Every execution of {@code stateMachineArn} the engine holds with {@code status}, newest first. */
        List<ExecutionSummary> executions(String stateMachineArn, ExecutionStatus status);

        /** The status of the execution {@code executionArn}; empty when the engine holds no such execution. */
        Optional<ExecutionStatus> executionStatus(String executionArn);
    }

    /**
     * A mode wired into a running runtime: what the runtime, the console, {@code punctual local} and the
     * trial ask of it (through the runtime's {@code RuntimeMode}, which adds the whole handler environment).
     *
     * @param stateMachineArn the state machine whose executions the stream handler starts
     * @param facts what {@code punctual local} prints about the mode, label to value, beyond its state machine
     * @param executionPerItem whether each pending item is an open execution of {@code stateMachineArn}
     *     whose history records its delete (per item); otherwise the runtime's deletion ledger is where
     *     deletes show
     * @param pending the pending work as the console lists it, read the way this mode keeps it
     * @param windowedParts what windowed mode wires beyond what every mode has; {@code null} in any other
     *     mode ({@link #windowed()} says so as an {@link Optional})
     */
    record Wired(String stateMachineArn, Map<String, String> facts,
            boolean executionPerItem, Function<PendingWork.Sources, PendingWork> pending, WindowedParts windowedParts) {

        public Wired {
            facts = Map.copyOf(facts);
        }

        /** A mode wired with nothing of windowed mode's. */
        public Wired(String stateMachineArn, Map<String, String> facts,
                boolean executionPerItem, Function<PendingWork.Sources, PendingWork> pending) {
            this(stateMachineArn, facts, executionPerItem, pending, null);
        }

        /** What windowed mode wires beyond what every mode has; empty in any other mode. */
        public Optional<WindowedParts> windowed() {
            return Optional.ofNullable(windowedParts);
        }

        /** The mode's pending work, read from {@code sources}. */
        public PendingWork pendingWork(PendingWork.Sources sources) {
            return pending.apply(sources);
        }
    }
}
