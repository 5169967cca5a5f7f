package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.CfnElement;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.assertions.Template;
import software.constructs.IConstruct;

/** A synthesized stack's template as a Jackson tree, with the look-ups the CDK tests share. */
final class TemplateJson {

    static final ObjectMapper JSON = new ObjectMapper();

    private final Stack stack;
    private final JsonNode template;

    private TemplateJson(Stack stack, JsonNode template) {
        this.stack = stack;
        this.template = template;
    }

    /** Synthesizes the stack's app (once per app; later calls reuse the assembly). */
    static TemplateJson synthesize(Stack stack) {
        Map<String, Object> raw = Template.fromStack(stack).toJSON();
        return new TemplateJson(stack, JSON.valueToTree(raw));
    }

    /** A template that is no synthesized stack's (a rendered one): look-ups by logical ID are not available. */
    static TemplateJson of(JsonNode template) {
        return new TemplateJson(null, template);
    }

    JsonNode resources() {
        return template.path("Resources");
    }

    JsonNode outputs() {
        return template.path("Outputs");
    }

    /** Logical IDs and properties of every resource of a type. */
    Map<String, JsonNode> ofType(String type) {
        Map<String, JsonNode> found = new java.util.LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = resources().fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            if (type.equals(entry.getValue().path("Type").asText())) {
                found.put(entry.getKey(), entry.getValue().path("Properties"));
            }
        }
        return found;
    }

    /** Properties of the only resource of a type. */
    JsonNode single(String type) {
        Map<String, JsonNode> found = ofType(type);
        assertThat(found).as("resources of type %s", type).hasSize(1);
        return found.values().iterator().next();
    }

    /** Properties of the resource a construct's default child (or the construct itself) renders to. */
    JsonNode propertiesOf(IConstruct construct) {
        JsonNode resource = resources().path(logicalId(construct));
        assertThat(resource.isMissingNode()).as("resource for %s", construct.getNode().getPath()).isFalse();
        return resource.path("Properties");
    }

    String logicalId(IConstruct construct) {
        IConstruct element = construct instanceof CfnElement ? construct : construct.getNode().getDefaultChild();
        return stack.resolve(stack.getLogicalId((CfnElement) element)).toString();
    }

    /**
     * A value with its intrinsics written out: {@code Ref X} as {@code ${X}}, {@code GetAtt X.A} as
     * {@code ${X.A}}, {@code Fn::Join} joined, anything else as its JSON; so an ARN reads as one string.
     */
    static String render(JsonNode value) {
        if (value.isTextual()) {
            return value.asText();
        }
        if (value.isObject() && value.size() == 1) {
            if (value.has("Ref")) {
                return "${" + value.get("Ref").asText() + "}";
            }
            if (value.has("Fn::GetAtt")) {
                return "${" + value.get("Fn::GetAtt").get(0).asText() + "." + value.get("Fn::GetAtt").get(1).asText() + "}";
            }
            if (value.has("Fn::Join")) {
                StringBuilder joined = new StringBuilder();
                String separator = value.get("Fn::Join").get(0).asText();
                JsonNode parts = value.get("Fn::Join").get(1);
                for (int i = 0; i < parts.size(); i++) {
                    joined.append(i == 0 ? "" : separator).append(render(parts.get(i)));
                }
                return joined.toString();
            }
        }
        return value.toString();
    }

    /** A policy statement's Action or Resource, which CloudFormation allows as one value or a list. */
    static List<JsonNode> listOf(JsonNode valueOrList) {
        List<JsonNode> values = new ArrayList<>();
        if (valueOrList.isArray()) {
            valueOrList.forEach(values::add);
        } else if (!valueOrList.isMissingNode()) {
            values.add(valueOrList);
        }
        return values;
    }

    /** Every statement of every AWS::IAM::Policy attached to the role with the given logical ID. */
    List<JsonNode> statementsOfRole(String roleLogicalId) {
        List<JsonNode> statements = new ArrayList<>();
        ofType("AWS::IAM::Policy").values().forEach(policy -> {
            boolean attached = listOf(policy.path("Roles")).stream()
                    .anyMatch(role -> roleLogicalId.equals(role.path("Ref").asText()));
            if (attached) {
                policy.path("PolicyDocument").path("Statement").forEach(statements::add);
            }
        });
        return statements;
    }

    /** Every statement of every AWS::IAM::Policy in the stack. */
    List<JsonNode> allStatements() {
        List<JsonNode> statements = new ArrayList<>();
        ofType("AWS::IAM::Policy").values()
                .forEach(policy -> policy.path("PolicyDocument").path("Statement").forEach(statements::add));
        return statements;
    }

    /** The statements that allow an action, in one role's policies. */
    static List<JsonNode> allowing(List<JsonNode> statements, String action) {
        return statements.stream()
                .filter(s -> listOf(s.path("Action")).stream().anyMatch(a -> a.asText().equals(action)))
                .toList();
    }

    static List<String> actions(JsonNode statement) {
        return listOf(statement.path("Action")).stream().map(JsonNode::asText).toList();
    }

    static List<String> renderedResources(JsonNode statement) {
        return listOf(statement.path("Resource")).stream().map(TemplateJson::render).toList();
    }
}
