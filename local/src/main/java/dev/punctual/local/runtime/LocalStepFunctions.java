package dev.punctual.local.runtime;

import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.retention.Retained;
import dev.punctual.local.faults.RuntimeFaults;
import dev.punctual.local.stepfunctions.api.InProcessTransport;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.ExecutionLogging;
import dev.punctual.local.stepfunctions.executions.StateMachineDescription;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.WorkflowType;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.stepfunctions.executions.Recovery;
import dev.punctual.local.stepfunctions.quotas.Throttles;
import dev.punctual.local.stepfunctions.tasks.DynamoDbTaskResource;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stepfunctions.tasks.LambdaTaskResource;
import dev.punctual.local.time.InFlight;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The runtime's Step Functions: our engine, its Task states calling DynamoDB on a pool of task threads
 * and Lambda in-process, the quotas it and its API enforce, the API on loopback, and the expire-item
 * state machine deployed on it. Functions call it in-process ({@link #inProcessTransport}) unless
 * the runtime sends them over HTTP.
 */
final class LocalStepFunctions implements AutoCloseable {

    /** Threads that call DynamoDB for Task states: deletes are short blocking calls into DynamoDB Local. */
    private static final int TASK_THREADS = 16;

    private final Lifetimes owned;
    private final Throttles throttles;
    private final StepFunctionsEngine engine;
    private final StepFunctionsServer server;
    private final InProcessTransport transport;
    private final String expireItemArn;

    private LocalStepFunctions(Lifetimes owned, LocalRuntime.Options options, Timer timer, DynamoDbClient punctualDynamoDb,
            RuntimeFaults faults, LambdaFunctions functions) {
        this.owned = owned;
        ExecutorService tasks = owned.ownThreads(TASK_THREADS, "punctual-task");
        throttles = Throttles.of(options.quotas(), timer.clock());
        engine = owned.own(StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, tasks, throttles.transitions()))
                .taskResources(List.of(new DynamoDbTaskResource(faults.dynamoDbFor("state-machine", punctualDynamoDb)),
                        faults.lambdaTasks(new LambdaTaskResource(functions), "state-machine",
                                StreamWiring.BUCKET_FUNCTION_TIMEOUT)))
                .timer(timer)
                .inFlight(owned.work())
                .dataDirectory(options.under("stepfunctions"))
                // The functions its Lambda Tasks invoke are registered once the engine is up: see resumeRecovered.
                .resumeRecoveredLater()
                .region(LocalAccount.REGION)
                .accountId(LocalAccount.ACCOUNT_ID)
                .maxOpenExecutions(options.maxOpenExecutions())
                .closedExecutionRetention(options.retention().of(Retained.CLOSED_EXECUTIONS))
                .build());
        server = owned.own(StepFunctionsServer.start(engine, throttles,
                new InetSocketAddress(LocalDefaults.LOOPBACK, options.stepFunctionsPort())));
        expireItemArn = deploy(LocalDefaults.STATE_MACHINE_NAME, StateMachineDefinitions.expireItem("aws"));
        transport = options.handlerOverHttp() ? null : new InProcessTransport(engine, throttles);
    }

    /**
     * Starts the engine and its API with {@code options}' quotas, port and data directory; Task states
     * delete through {@code punctualDynamoDb} (with {@code faults}) and invoke {@code functions}.
     */
    static LocalStepFunctions start(LocalRuntime.Options options, Timer timer, DynamoDbClient punctualDynamoDb,
            RuntimeFaults faults, LambdaFunctions functions, InFlight work) {
        return Lifetimes.start("the Step Functions engine", work, owned ->
                new LocalStepFunctions(owned, options, timer, punctualDynamoDb, faults, functions));
    }

    /**
     * Creates the state machine, or updates it when a data directory from an earlier run holds it:
     * running executions keep the definition they started with, new ones get today's file.
     */
    String deploy(String name, String definition) {
        return deploy(name, definition, WorkflowType.STANDARD, ExecutionLogging.OFF);
    }

    /**
     * {@link #deploy(String, String)} for a machine of {@code type} that logs as {@code logging} says. A
     * machine's type cannot change (in AWS neither): a data directory that holds the name with the other
     * type is refused with a message saying so.
     */
    String deploy(String name, String definition, WorkflowType type, ExecutionLogging logging) {
        String arn = engine.stateMachineArn(name);
        StateMachineDescription existing;
        try {
            existing = engine.describeStateMachine(arn);
        } catch (StepFunctionsException notThereYet) {
            engine.createStateMachine(name, definition, LocalDefaults.ROLE_ARN, type.name(), logging);
            return arn;
        }
        if (!existing.type().equals(type.name())) {
            throw new IllegalStateException("The data directory holds state machine " + name + " as " + existing.type()
                    + ", not " + type + ": it was written by another version of Punctual; start with a new --data-dir");
        }
        engine.updateStateMachine(arn, definition, LocalDefaults.ROLE_ARN);
        return arn;
    }

    /** ARN of the expire-item state machine. */
    String expireItemArn() {
        return expireItemArn;
    }

    StepFunctionsEngine engine() {
        return engine;
    }

    Throttles throttles() {
        return throttles;
    }

    Recovery recovery() {
        return engine.recovery();
    }

    /**
     * Runs on the executions the data directory held, once the runtime has registered every function and rule
     * they may call: a Task in flight when the runtime stopped runs again at once, and invoking a function not
     * registered yet failed it with {@code Lambda.ResourceNotFoundException}.
     */
    Recovery resumeRecovered() {
        return engine.resumeRecovered();
    }

    /** The API's endpoint on loopback. */
    URI endpoint() {
        return LocalDefaults.endpoint(server.port());
    }

    /**
     * The in-process route to the API, for the functions' Step Functions clients; empty when functions go
     * over HTTP, building their own clients from the environment.
     */
    Optional<SdkHttpClient> inProcessTransport() {
        return Optional.ofNullable(transport);
    }

    /** Closes the API, then the engine, then the task threads. */
    @Override
    public void close() {
        owned.close();
    }
}
