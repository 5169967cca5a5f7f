package dev.punctual.cdk;

import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.CfnCondition;
import software.amazon.awscdk.Fn;
import software.constructs.IConstruct;

/**
 * The packaged template's small lookups in a construct tree and its conditional values: what
 * {@link TemplateParameters} uses to point a synthesized construct's resources at the parameters.
 */
final class CfnQueries {

    private CfnQueries() {
    }

    /** {@code value} where the condition holds; the property or list element is left out where not. */
    static Object when(CfnCondition condition, Object value) {
        return Fn.conditionIf(condition.getLogicalId(), value, Aws.NO_VALUE);
    }

    /** A policy statement's actions, whether it lists one or several. */
    static List<String> actions(Map<?, ?> statement) {
        Object action = statement.get("Action");
        return action instanceof List<?> list ? list.stream().map(Object::toString).toList() : List.of(action.toString());
    }

    /** The construct's CloudFormation resource. */
    static <T> T defaultChild(IConstruct construct, Class<T> type) {
        return type.cast(construct.getNode().getDefaultChild());
    }

    /** The one {@code type} under {@code scope}; fails when there is not exactly one. */
    static <T> T single(IConstruct scope, Class<T> type) {
        List<T> found = all(scope, type);
        if (found.size() != 1) {
            throw new IllegalStateException("Expected one " + type.getSimpleName() + " under "
                    + scope.getNode().getPath() + ", found " + found.size());
        }
        return found.get(0);
    }

    /** Every {@code type} under {@code scope}. */
    static <T> List<T> all(IConstruct scope, Class<T> type) {
        return scope.getNode().findAll().stream().filter(type::isInstance).map(type::cast).toList();
    }
}
