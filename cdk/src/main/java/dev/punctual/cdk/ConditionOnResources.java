package dev.punctual.cdk;

import java.util.Objects;
import java.util.Set;
import software.amazon.awscdk.CfnCondition;
import software.amazon.awscdk.CfnResource;
import software.amazon.awscdk.IAspect;
import software.constructs.IConstruct;

/**
 * Puts every CloudFormation resource under the scope it is added to behind one condition, so a whole
 * construct (here: one {@link dev.punctual.statemachine.ExpiryMode mode}'s {@link PunctualExpiry}) is
 * created or left out as a unit by a template parameter, without the construct knowing. A resource already
 * behind a narrower condition (one that holds only where this one does, such as the mode's backfill on
 * first deployment) keeps it.
 */
final class ConditionOnResources implements IAspect {

    private final CfnCondition condition;
    private final Set<CfnCondition> narrower;

    ConditionOnResources(CfnCondition condition, Set<CfnCondition> narrower) {
        this.condition = Objects.requireNonNull(condition, "condition");
        this.narrower = Set.copyOf(narrower);
    }

    @Override
    public void visit(IConstruct node) {
        if (node instanceof CfnResource resource) {
            CfnCondition existing = resource.getCfnOptions().getCondition();
            if (existing != null && narrower.contains(existing)) {
                return;
            }
            if (existing != null && existing != condition) {
                throw new IllegalStateException(resource.getNode().getPath() + " already has condition "
                        + existing.getLogicalId() + "; a resource takes one condition, so it cannot also be put behind "
                        + condition.getLogicalId());
            }
            resource.getCfnOptions().setCondition(condition);
        }
    }
}
