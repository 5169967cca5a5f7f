package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.iam.Role;
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

    /** The stream function's description. */
    String functionDescription();

    /** The stream function role's description. */
    String functionRoleDescription();

    /**
     * Grants the stream function's role what the mode's scheduling calls beyond starting, describing
     * (and, with cancellation, stopping) executions of {@link #stateMachine()}, which the construct grants.
     */
    void grantFunction(Role role);

    /** Environment variables the stream function gets beyond the shared ones. */
    Map<String, String> functionEnvironment();

    /** The description of the alarm on failed executions of {@link #stateMachine()}: what it means for items. */
    String executionsFailedMeaning();

    /** The description of the alarm on timed-out executions of {@link #stateMachine()}. */
    String executionsTimedOutMeaning();

    /** Alarms on the mode's own resources, created as children of the construct; none by default. */
    default List<Alarm> alarms() {
        return List.of();
    }

    /** Why DescribeExecution (and StopExecution) on {@code execution:<name>:*} cannot list its executions. */
    String executionsWildcardReason();

    /** Why {@link #stateMachine()} logs at ERROR without execution data (cdk-nag AwsSolutions-SF1). */
    String stateMachineLoggingReason();

    /** Why {@link #stateMachine()} has X-Ray tracing off unless asked (cdk-nag AwsSolutions-SF2). */
    String stateMachineTracingReason();

    /** Suppresses cdk-nag findings on the mode's own resources, each with its reason. */
    default void suppressNagFindings() {
    }
}
