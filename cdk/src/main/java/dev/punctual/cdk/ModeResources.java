package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.stepfunctions.StateMachine;

/**
 * What one {@link ExpiryMode} adds to {@link PunctualExpiry}: the state machine the stream function
 * starts and whatever it needs (a windowed table's schedule index and bucket function), what the
 * stream function may do and is told beyond the shared part, the mode's own alarms, and the reasons a
 * reviewer reads for its cdk-nag suppressions. The construct builds everything shared (stream function,
 * event source mapping, dead-letter queue, dashboard, shared alarms) and asks the mode for the rest.
 *
 * <p>{@link #create} is where this module registers each mode: a new mode adds its class and one case.
 */
interface ModeResources {

    /** Creates {@code mode}'s resources as children of the factory's construct. */
    static ModeResources create(ExpiryMode mode, ResourceFactory factory) {
        return switch (mode) {
            case PER_ITEM -> new PerItemResources(factory);
            case WINDOWED -> new WindowedResources(factory);
        };
    }

    /** The name and ARNs of {@link #stateMachine()}. */
    StateMachineIdentity identity();

    /** The state machine whose executions the stream function starts. */
    StateMachine stateMachine();

    /** What the mode's resources are for, in the words a reader of the template and its findings sees. */
    Descriptions descriptions();

    /**
     * Grants the stream function's role what the mode's scheduling calls beyond starting, describing
     * (and, with cancelStale, stopping) executions of {@link #stateMachine()}, which the construct grants.
     */
    void grantFunction(Role role);

    /** Environment variables the stream function gets beyond the shared ones. */
    Map<String, String> functionEnvironment();

    /** The mode's own functions beside the stream function (windowed: the bucket function); none by default. */
    default List<Function> functions() {
        return List.of();
    }

    /** Alarms on the mode's own resources, created as children of the construct; none by default. */
    default List<Alarm> alarms() {
        return List.of();
    }

    /** Suppresses cdk-nag findings on the mode's own resources, each with its reason. */
    default void suppressNagFindings() {
    }

    /**
     * A mode's words for what the shared resources do in it.
     *
     * @param function the stream function's description
     * @param functionRole the stream function role's description
     * @param executionsFailed the alarm on failed executions of {@link #stateMachine()}: what it means for items
     * @param executionsTimedOut the alarm on timed-out executions of {@link #stateMachine()}
     * @param executionsWildcard why DescribeExecution (and StopExecution) on {@code execution:<name>:*}
     *     cannot list the executions (cdk-nag AwsSolutions-IAM5)
     * @param stateMachineLogging why {@link #stateMachine()} logs at ERROR without execution data (AwsSolutions-SF1)
     * @param stateMachineTracing why {@link #stateMachine()} has X-Ray tracing off unless asked (AwsSolutions-SF2)
     */
    record Descriptions(String function, String functionRole, String executionsFailed, String executionsTimedOut,
            String executionsWildcard, String stateMachineLogging, String stateMachineTracing) {
    }
}

