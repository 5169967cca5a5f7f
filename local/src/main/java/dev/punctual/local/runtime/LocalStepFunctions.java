package dev.punctual.local.runtime;

import dev.punctual.functions.ExpirySettings;
import dev.punctual.functions.SfnExecutions;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.stepfunctions.api.InProcessTransport;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.executions.StepFunctionsException;
import dev.punctual.local.stepfunctions.executions.Recovery;
import dev.punctual.local.stepfunctions.quotas.Throttles;
import dev.punctual.local.stepfunctions.tasks.DynamoDbFaults;
import dev.punctual.local.stepfunctions.tasks.DynamoDbTaskResource;
import dev.punctual.local.stepfunctions.tasks.LambdaFunctions;
import dev.punctual.local.stepfunctions.tasks.LambdaTaskResource;
import dev.punctual.local.time.Timer;
import dev.punctual.statemachine.StateMachineDefinitions;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The runtime's Step Functions: our engine, its Task states calling DynamoDB on a pool of task threads
 * and Lambda in-process, the quotas it and its API enforce, the API on loopback, and the expire-item
 * state machine deployed on it. Functions call it in-process ({@link #inProcessExecutions}) unless
 * the runtime sends them over HTTP.
 */
final class LocalStepFunctions implements AutoCloseable {

    /** Threads that call DynamoDB for Task states: deletes are short blocking calls into DynamoDB Local. */
    static final int TASK_THREADS = 16;

    private final Lifetimes owned;
    private final Throttles throttles;
    private final StepFunctionsEngine engine;
    private final StepFunctionsServer server;
    private final InProcessTransport transport;
    private final String expireItemArn;

    private LocalStepFunctions(Lifetimes owned, LocalRuntime.Options options, Timer timer, DynamoDbClient punctualDynamoDb,
            DynamoDbFaults faults, LambdaFunctions functions) {
        this.owned = owned;
        ExecutorService tasks = owned.ownThreads(TASK_THREADS, "punctual-task");
        throttles = Throttles.of(options.quotas(), timer.clock());
        engine = owned.own(StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, tasks, throttles.transitions()))
                .taskResources(List.of(new DynamoDbTaskResource(punctualDynamoDb, faults), new LambdaTaskResource(functions)))
                .timer(timer)
                .dataDirectory(options.under("stepfunctions"))
                .region(LocalAccount.REGION)
                .accountId(LocalAccount.ACCOUNT_ID)
                .maxOpenExecutions(options.maxOpenExecutions())
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
            DynamoDbFaults faults, LambdaFunctions functions) {
        return Lifetimes.start("the Step Functions engine", owned ->
                new LocalStepFunctions(owned, options, timer, punctualDynamoDb, faults, functions));
    }

    /**
     * Creates the state machine, or updates it when a data directory from an earlier run holds it:
     * running executions keep the definition they started with, new ones get today's file.
     */
    String deploy(String name, String definition) {
        String arn = engine.stateMachineArn(name);
        try {
            engine.describeStateMachine(arn);
            engine.updateStateMachine(arn, definition, LocalDefaults.ROLE_ARN);
        } catch (StepFunctionsException notThereYet) {
            engine.createStateMachine(name, definition, LocalDefaults.ROLE_ARN, "STANDARD");
        }
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

    /** The API's endpoint on loopback. */
    URI endpoint() {
        return LocalDefaults.endpoint(server.port());
    }

    /**
     * A function's Step Functions adapter (for its {@code settings} and {@code environment}) over the
     * in-process transport; empty when functions go over HTTP, building their own from the environment.
     */
    Optional<SfnExecutions> inProcessExecutions(ExpirySettings settings, Map<String, String> environment) {
        return transport == null ? Optional.empty() : Optional.of(SfnExecutions.create(settings, environment, transport));
    }

    /** Closes the API, then the engine, then the task threads. */
    @Override
    public void close() {
        owned.close();
    }
}
