package dev.punctual.cdk;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.CfnCondition;
import software.amazon.awscdk.CfnResource;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.CfnPolicy;

/**
 * The packaged template's grants that only some parameter values need, each put behind its condition in
 * a construct built with every option on: X-Ray's with tracing, PutEvents with expiry events, the
 * stream function's StopExecution with cancelStale (windowed mode's bucket machine stops its runner,
 * whatever that setting says), and the backfill function's start of its own machine with the backfill
 * on creation (the run itself too). Every other statement stays as the construct wrote it.
 */
final class ConditionalGrants {

    private final Stack stack;
    private final CfnCondition tracingOn;
    private final CfnCondition expiryEventsOn;
    private final CfnCondition cancelStaleOn;

    ConditionalGrants(Stack stack, CfnCondition tracingOn, CfnCondition expiryEventsOn, CfnCondition cancelStaleOn) {
        this.stack = stack;
        this.tracingOn = tracingOn;
        this.expiryEventsOn = expiryEventsOn;
        this.cancelStaleOn = cancelStaleOn;
    }

    /**
     * Puts {@code expiry}'s conditional grants behind their conditions, and its first-deploy backfill run
     * with its grant behind {@code backfillOnCreate}.
     */
    void applyTo(PunctualExpiry expiry, CfnCondition backfillOnCreate) {
        expiry.backfill().startOnCreate().orElseThrow().getNode().findAll().stream()
                .filter(CfnResource.class::isInstance).map(CfnResource.class::cast)
                .forEach(resource -> resource.getCfnOptions().setCondition(backfillOnCreate));
        Object onCreateGrant = stack.resolve(expiry.backfill().startOnCreateGrant().orElseThrow().toStatementJson());
        CfnPolicy backfillFunctionPolicy = CfnQueries.defaultChild(
                expiry.backfill().functionRole().getNode().findChild("DefaultPolicy"), CfnPolicy.class);

        List<CfnPolicy> streamFunction = CfnQueries.all(expiry.functionRole(), CfnPolicy.class);

        // The backfill machine may start itself (its successor) whatever the parameter says; its function only for the run.
        CfnQueries.all(expiry, CfnPolicy.class).forEach(policy -> policy.addPropertyOverride("PolicyDocument.Statement",
                statements(policy, policy == backfillFunctionPolicy ? onCreateGrant : null, backfillOnCreate,
                        streamFunction.contains(policy))));
    }

    /**
     * The policy's statements with those only some settings need behind their conditions;
     * {@code onCreateGrant} is the backfill's start of itself, in the backfill function's policy only;
     * {@code streamFunction} whether it is the stream function's, whose StopExecution alone follows cancelStale.
     */
    private List<Object> statements(CfnPolicy policy, Object onCreateGrant, CfnCondition onCreate,
            boolean streamFunction) {
        Object document = stack.resolve(policy.getPolicyDocument());
        List<Object> statements = new ArrayList<>();
        for (Object each : (List<?>) ((Map<?, ?>) document).get("Statement")) {
            Map<?, ?> statement = (Map<?, ?>) each;
            List<String> actions = CfnQueries.actions(statement);
            if (onCreateGrant != null && statement.equals(onCreateGrant)) {
                statements.add(CfnQueries.when(onCreate, statement));
            } else if (actions.stream().allMatch(action -> action.startsWith("xray:"))) {
                statements.add(CfnQueries.when(tracingOn, statement));
            } else if (actions.contains("events:PutEvents")) {
                statements.add(CfnQueries.when(expiryEventsOn, statement));
            } else if (streamFunction && actions.contains("states:StopExecution")) {
                Map<Object, Object> withoutStop = new LinkedHashMap<>(statement);
                List<String> remaining = actions.stream().filter(a -> !a.equals("states:StopExecution")).toList();
                withoutStop.put("Action", remaining.size() == 1 ? remaining.get(0) : remaining);
                statements.add(Fn.conditionIf(cancelStaleOn.getLogicalId(), statement, withoutStop));
            } else {
                statements.add(statement);
            }
        }
        return statements;
    }
}
