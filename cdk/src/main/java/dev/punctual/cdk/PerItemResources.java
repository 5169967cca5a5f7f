package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.ExpiryWorkflow;
import dev.punctual.statemachine.StateMachineDefinitions;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.stepfunctions.StateMachine;

/**
 * {@link ExpiryMode#PER_ITEM}: the {@code expire-item} state machine, which waits and deletes on its own.
 * The stream function needs nothing beyond starting, describing and stopping its executions.
 */
final class PerItemResources implements ModeResources {

    private final StateMachineIdentity identity;
    private final StateMachine stateMachine;

    PerItemResources(ResourceFactory factory) {
        this.identity = StateMachineIdentity.unique(factory.scope(), factory.props(), "");
        this.stateMachine = factory.standardStateMachine("StateMachine", identity.name(),
                "Punctual: delete one item at its TTL if the TTL is unchanged",
                StateMachineDefinitions.expireItemTemplate(), ExpiryWorkflow.substitutions(Aws.PARTITION));
        stateMachine.addToRolePolicy(ResourceFactory.allow(List.of("dynamodb:DeleteItem"),
                factory.props().table().getTableArn()));
        stateMachine.addToRolePolicy(ResourceFactory.allow(List.of("states:StartExecution"), identity.arn()));
    }

    @Override
    public StateMachineIdentity identity() {
        return identity;
    }

    @Override
    public StateMachine stateMachine() {
        return stateMachine;
    }

    @Override
    public Descriptions descriptions() {
        return new Descriptions(
                "Punctual: starts one expiry execution per item with a TTL",
                "Punctual stream handler: starts, describes and stops expiry executions",
                "An expiry execution failed: its item was not deleted at its TTL",
                "An expiry execution hit the one-year limit: its item was not deleted at its TTL",
                "Executions are named per item at run time, so their ARNs"
                        + " cannot be listed; the wildcard covers only the executions of this"
                        + " construct's own state machine, for DescribeExecution (name conflicts)"
                        + " and StopExecution (cancelling stale expiries).",
                "Logging is at ERROR without execution data on"
                        + " purpose: inputs carry item keys (user data must not reach logs), a successful expiry"
                        + " has nothing to report that its execution history lacks, and ALL would log several"
                        + " events per item. Every failure is logged and alarmed (ExecutionsFailed,"
                        + " ExecutionsTimedOut).",
                "X-Ray tracing is opt-in (tracing(true)): a"
                        + " trace of one Wait and one DeleteItem per item adds cost per expiry and little"
                        + " insight; failures are visible in logs, execution history and alarms.");
    }

    @Override
    public void grantFunction(Role role) {
        // Starting, describing and stopping executions is all it does; the construct grants those.
    }

    /** None: per item is the handler's default mode, and the template stays as it was before modes. */
    @Override
    public Map<String, String> functionEnvironment() {
        return Map.of();
    }
}
