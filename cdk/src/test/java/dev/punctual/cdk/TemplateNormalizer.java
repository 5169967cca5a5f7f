package dev.punctual.cdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awscdk.CfnResource;
import software.amazon.awscdk.Names;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.constructs.IConstruct;

/**
 * Puts the resources of two syntheses of the construct into one comparable form: each keyed by its construct
 * path under a scope instead of its logical ID (which hashes the full path), references renamed the same
 * way (also where a name is a logical ID), and what differs by design between two syntheses replaced by a placeholder: the state machine's
 * name, the table's node id in a path, the code's location. Metadata is left out (construct paths,
 * cdk-nag and cfn-lint annotations); numbers are compared as CloudFormation passes them, as text; an empty
 * list is no list (an alarm without actions).
 */
final class TemplateNormalizer {

    static final String STATE_MACHINE_NAME = "<stateMachineName>";
    static final String CODE = "<code>";

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Map<String, String> pathByLogicalId = new LinkedHashMap<>();
    private final Map<String, String> textReplacements = new LinkedHashMap<>();
    private final Map<JsonNode, String> valueReplacements = new LinkedHashMap<>();

    /**
     * @param scope resources are keyed by their path under it
     * @param table the imported table, whose node id appears in the event source mapping's path
     */
    TemplateNormalizer(IConstruct scope, ITable table) {
        Stack stack = Stack.of(scope);
        String prefix = scope.getNode().getPath() + "/";
        String tableId = Names.nodeUniqueId(table.getNode());
        for (IConstruct each : scope.getNode().findAll()) {
            if (each instanceof CfnResource resource) {
                // The element's own logical ID, which honours overrides (a function version's carries a hash).
                String logicalId = stack.resolve(resource.getLogicalId()).toString();
                // A rule's permission to invoke its target is named after the target's unique id, which hashes
                // the target's full path: the same permission in another stack has another name.
                pathByLogicalId.put(logicalId, resource.getNode().getPath().substring(prefix.length())
                        .replace(tableId, "<table>").replaceAll("/AllowEventRule[A-Za-z0-9]+$", "/AllowEventRule<target>"));
            }
        }
    }

    /** Replaces every occurrence of {@code text} inside a string value. */
    TemplateNormalizer replacingText(String text, String placeholder) {
        textReplacements.put(text, placeholder);
        return this;
    }

    /** Replaces every value equal to {@code value} (an intrinsic function, say). */
    TemplateNormalizer replacingValue(JsonNode value, String placeholder) {
        valueReplacements.put(value, placeholder);
        return this;
    }

    /** The scope's resources in {@code resources}, by path, normalized; Lambda code as {@link #CODE}. */
    Map<String, JsonNode> resources(JsonNode resources) {
        Map<String, JsonNode> byPath = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = resources.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String path = pathByLogicalId.get(entry.getKey());
            if (path == null) {
                continue;
            }
            ObjectNode resource = (ObjectNode) normalize(entry.getValue());
            resource.remove("Metadata");
            if ("AWS::Lambda::Function".equals(resource.path("Type").asText())) {
                ((ObjectNode) resource.get("Properties")).put("Code", CODE);
            }
            byPath.put(path, resource);
        }
        return byPath;
    }

    /** The logical IDs this normalizer knows, with their paths. */
    Map<String, String> paths() {
        return pathByLogicalId;
    }

    private JsonNode normalize(JsonNode value) {
        String replacement = valueReplacements.get(value);
        if (replacement != null) {
            return TextNode.valueOf(replacement);
        }
        if (value.isTextual()) {
            String text = value.asText();
            if (pathByLogicalId.containsKey(text)) {
                // A name CDK derives from a logical ID, such as a default policy's PolicyName.
                return TextNode.valueOf(pathByLogicalId.get(text));
            }
            for (Map.Entry<String, String> each : textReplacements.entrySet()) {
                text = text.replace(each.getKey(), each.getValue());
            }
            return TextNode.valueOf(text);
        }
        if (value.isNumber() || value.isBoolean()) {
            return TextNode.valueOf(value.asText());
        }
        if (value.isArray()) {
            ArrayNode copy = NODES.arrayNode();
            value.forEach(element -> copy.add(normalize(element)));
            return copy;
        }
        if (!value.isObject()) {
            return value;
        }
        Map.Entry<String, JsonNode> function = RenderedTemplate.function(value);
        if (function != null && function.getKey().equals("Ref")) {
            return NODES.objectNode().put("Ref", renamed(function.getValue().asText()));
        }
        if (function != null && function.getKey().equals("Fn::GetAtt")) {
            return NODES.objectNode().set("Fn::GetAtt", NODES.arrayNode()
                    .add(renamed(function.getValue().get(0).asText())).add(function.getValue().get(1)));
        }
        ObjectNode copy = NODES.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            JsonNode normalized = field.getKey().equals("DependsOn") ? renamedAll(field.getValue())
                    : normalize(field.getValue());
            if (normalized.isArray() && normalized.isEmpty()) {
                continue;
            }
            copy.set(field.getKey(), normalized);
        }
        if (function != null && function.getKey().equals("Fn::Join")) {
            return joined(copy.get("Fn::Join"));
        }
        return copy;
    }

    private String renamed(String logicalId) {
        return pathByLogicalId.getOrDefault(logicalId, logicalId);
    }

    private JsonNode renamedAll(JsonNode logicalIds) {
        ArrayNode renamed = NODES.arrayNode();
        for (JsonNode id : logicalIds.isArray() ? logicalIds : NODES.arrayNode().add(logicalIds)) {
            renamed.add(renamed(id.asText()));
        }
        return renamed;
    }

    /** A join with adjacent strings merged: a placeholder put in where a function was can then meet its neighbours. */
    private static JsonNode joined(JsonNode join) {
        String separator = join.get(0).asText();
        List<JsonNode> merged = new ArrayList<>();
        for (JsonNode part : join.get(1)) {
            int last = merged.size() - 1;
            if (part.isTextual() && last >= 0 && merged.get(last).isTextual()) {
                merged.set(last, TextNode.valueOf(merged.get(last).asText() + separator + part.asText()));
            } else {
                merged.add(part);
            }
        }
        if (merged.size() == 1 && merged.get(0).isTextual()) {
            return merged.get(0);
        }
        return NODES.objectNode().set("Fn::Join", NODES.arrayNode().add(separator).add(NODES.arrayNode().addAll(merged)));
    }
}
