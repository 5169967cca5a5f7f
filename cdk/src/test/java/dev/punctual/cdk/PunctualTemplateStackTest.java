package dev.punctual.cdk;

import static dev.punctual.cdk.TemplateParameters.ALARM_TOPIC_ARN;
import static dev.punctual.cdk.TemplateParameters.BACKFILL_ON_CREATE;
import static dev.punctual.cdk.TemplateParameters.BATCH_SIZE;
import static dev.punctual.cdk.TemplateParameters.BUCKET_DELETE_CONCURRENCY;
import static dev.punctual.cdk.TemplateParameters.CANCEL_STALE;
import static dev.punctual.cdk.TemplateParameters.EXPIRY_EVENT_BUS_NAME;
import static dev.punctual.cdk.TemplateParameters.INCLUDE_OLD_IMAGE;
import static dev.punctual.cdk.TemplateParameters.LAG_ALARM_THRESHOLD_MS;
import static dev.punctual.cdk.TemplateParameters.LOG_LEVEL;
import static dev.punctual.cdk.TemplateParameters.LOG_RETENTION_DAYS;
import static dev.punctual.cdk.TemplateParameters.MAX_CONCURRENCY;
import static dev.punctual.cdk.TemplateParameters.MAX_RECORD_AGE_SECONDS;
import static dev.punctual.cdk.TemplateParameters.MAX_RETRY_ATTEMPTS;
import static dev.punctual.cdk.TemplateParameters.MODE;
import static dev.punctual.cdk.TemplateParameters.PARALLELIZATION_FACTOR;
import static dev.punctual.cdk.TemplateParameters.TABLE_STREAM_ARN;
import static dev.punctual.cdk.TemplateParameters.TRACING;
import static dev.punctual.cdk.TemplateParameters.TTL_ATTRIBUTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.PunctualVersion;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.App;
import software.amazon.awscdk.CfnElement;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.events.EventBus;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.sns.Topic;
import software.constructs.IConstruct;

/**
 * The packaged template, deploying nothing: rendered with parameter values, each mode's resources equal
 * the construct's own synthesis with the same options (so the two cannot drift), each parameter changes
 * exactly what it should, and nothing bootstrap-, account-, Region- or table-specific is in it.
 */
class PunctualTemplateStackTest {

    static final String TABLE = "orders.v2";
    static final String STREAM_ARN =
            "arn:aws:dynamodb:eu-west-1:123456789012:table/orders.v2/stream/2024-05-01T00:00:00.000";
    static final String TTL = "validUntil";
    static final String TOPIC_ARN = "arn:aws:sns:eu-west-1:123456789012:punctual-alarms";
    static final String BUS = "orders-expiries";

    /** The two parameters without a default. */
    static final Map<String, String> REQUIRED = Map.of(TABLE_STREAM_ARN, STREAM_ARN, TTL_ATTRIBUTE, TTL);

    /**
     * Every other parameter away from its default (CancelStale only where the mode reads it; the per-item
     * template ignores BucketDeleteConcurrency, as the construct would refuse it there).
     */
    static final Map<String, String> CHANGED = Map.ofEntries(
            Map.entry(BATCH_SIZE, "500"), Map.entry(PARALLELIZATION_FACTOR, "4"),
            Map.entry(MAX_RETRY_ATTEMPTS, "3"), Map.entry(MAX_RECORD_AGE_SECONDS, "7200"),
            Map.entry(MAX_CONCURRENCY, "64"), Map.entry(BUCKET_DELETE_CONCURRENCY, "128"),
            Map.entry(EXPIRY_EVENT_BUS_NAME, BUS),
            Map.entry(INCLUDE_OLD_IMAGE, "true"), Map.entry(LAG_ALARM_THRESHOLD_MS, "2500"),
            Map.entry(ALARM_TOPIC_ARN, TOPIC_ARN), Map.entry(TRACING, "true"), Map.entry(LOG_LEVEL, "DEBUG"),
            Map.entry(LOG_RETENTION_DAYS, "90"), Map.entry(BACKFILL_ON_CREATE, "true"));

    private static PunctualTemplateStack stack;
    private static JsonNode template;

    @BeforeAll
    static void synthesize() {
        stack = PunctualTemplateStack.create(FunctionBundle.locate());
        template = PackagedTemplate.render(stack);
    }

    static Stream<Arguments> configurations() {
        return Stream.of(
                Arguments.of(ExpiryMode.PER_ITEM, false),
                Arguments.of(ExpiryMode.PER_ITEM, true),
                Arguments.of(ExpiryMode.WINDOWED, false),
                Arguments.of(ExpiryMode.WINDOWED, true));
    }

    @ParameterizedTest(name = "{0}, options changed: {1}")
    @MethodSource("configurations")
    void rendered_isTheConstructsOwnSynthesis_withTheSameOptions(ExpiryMode mode, boolean changed) {
        Map<String, String> values = new HashMap<>(REQUIRED);
        values.put(MODE, mode.label());
        if (changed) {
            values.putAll(CHANGED);
            if (mode == ExpiryMode.PER_ITEM) {
                values.put(CANCEL_STALE, "false");
            }
        }
        JsonNode rendered = RenderedTemplate.render(template, values);

        Stack reference = referenceStack(mode, changed);
        PunctualExpiry constructExpiry = (PunctualExpiry) reference.getNode().findChild("Expiry");
        Map<String, JsonNode> fromConstruct = new TemplateNormalizer(constructExpiry, table(reference))
                .replacingText(baseName(constructExpiry), TemplateNormalizer.STATE_MACHINE_NAME)
                .resources(PackagedTemplate.render(reference).path("Resources"));

        PunctualExpiry templateExpiry = stack.expiry(mode);
        Map<String, JsonNode> fromTemplate = templateNormalizer(mode).resources(rendered.path("Resources"));
        // The one property the template adds: a version's description, so a changed setting publishes a version.
        fromTemplate.values().stream().filter(r -> r.path("Type").asText().equals("AWS::Lambda::Version"))
                .forEach(version -> ((ObjectNode) version.get("Properties"))
                        .remove("Description"));

        assertThat(fromTemplate.keySet()).isEqualTo(fromConstruct.keySet());
        fromConstruct.forEach((path, resource) -> assertThat(fromTemplate.get(path)).as(path).isEqualTo(resource));
        assertThat(rendered.path("Resources").size())
                .as("resources of the other mode are left out").isEqualTo(fromTemplate.size());
        assertThat(templateExpiry.mode()).isEqualTo(mode);
    }

    static Stream<Arguments> parameters() {
        String perItemMapping = "PerItem/LiveAlias/DynamoDBEventSource:<table>/Resource";
        String windowedMapping = "Windowed/LiveAlias/DynamoDBEventSource:<table>/Resource";
        return Stream.of(
                change(ExpiryMode.PER_ITEM, TTL_ATTRIBUTE, "expiresAt", Set.of(
                        "PerItem/Function/Resource Environment", "PerItem/Function/CurrentVersion/Resource Description",
                        perItemMapping + " FilterCriteria", "PerItem/Backfill/Function/Resource Environment")),
                change(ExpiryMode.WINDOWED, TTL_ATTRIBUTE, "expiresAt", Set.of(
                        "Windowed/Function/Resource Environment", "Windowed/Function/CurrentVersion/Resource Description",
                        "Windowed/BucketFunction/CurrentVersion/Resource Description", windowedMapping + " FilterCriteria",
                        "Windowed/Backfill/Function/Resource Environment")),
                change(ExpiryMode.PER_ITEM, TABLE_STREAM_ARN,
                        "arn:aws:dynamodb:eu-west-1:123456789012:table/sessions/stream/2025-01-01T00:00:00.000", Set.of(
                        perItemMapping + " EventSourceArn",
                        "PerItem/FunctionRole/DefaultPolicy/Resource PolicyDocument",
                        "PerItem/StateMachine/Role/DefaultPolicy/Resource PolicyDocument",
                        "PerItem/ExpiryLagAlarm/Resource Dimensions", "PerItem/BackstopWinsAlarm/Resource Dimensions",
                        "PerItem/Dashboard/Resource DashboardBody", "Outputs TableName",
                        "PerItem/Backfill/Function/Resource Environment",
                        "PerItem/Backfill/FunctionRole/DefaultPolicy/Resource PolicyDocument")),
                change(ExpiryMode.PER_ITEM, CANCEL_STALE, "false", Set.of(
                        "PerItem/Function/Resource Environment", "PerItem/Function/CurrentVersion/Resource Description",
                        "PerItem/FunctionRole/DefaultPolicy/Resource PolicyDocument")),
                change(ExpiryMode.WINDOWED, CANCEL_STALE, "false", Set.of(
                        "Windowed/Function/CurrentVersion/Resource Description",
                        "Windowed/BucketFunction/CurrentVersion/Resource Description")),
                change(ExpiryMode.PER_ITEM, BATCH_SIZE, "500", Set.of(perItemMapping + " BatchSize")),
                change(ExpiryMode.WINDOWED, BATCH_SIZE, "500", Set.of(windowedMapping + " BatchSize")),
                change(ExpiryMode.PER_ITEM, PARALLELIZATION_FACTOR, "4", Set.of(perItemMapping + " ParallelizationFactor")),
                change(ExpiryMode.PER_ITEM, MAX_RETRY_ATTEMPTS, "3", Set.of(perItemMapping + " MaximumRetryAttempts")),
                change(ExpiryMode.PER_ITEM, MAX_RECORD_AGE_SECONDS, "7200",
                        Set.of(perItemMapping + " MaximumRecordAgeInSeconds")),
                change(ExpiryMode.PER_ITEM, MAX_CONCURRENCY, "64", Set.of(
                        "PerItem/Function/Resource Environment", "PerItem/Function/CurrentVersion/Resource Description")),
                change(ExpiryMode.WINDOWED, BUCKET_DELETE_CONCURRENCY, "128", Set.of(
                        "Windowed/BucketFunction/Resource Environment",
                        "Windowed/BucketFunction/CurrentVersion/Resource Description",
                        "Windowed/Function/CurrentVersion/Resource Description")),
                change(ExpiryMode.PER_ITEM, BUCKET_DELETE_CONCURRENCY, "128", Set.of(
                        "PerItem/Function/CurrentVersion/Resource Description")),
                change(ExpiryMode.PER_ITEM, EXPIRY_EVENT_BUS_NAME, BUS, Set.of(
                        "PerItem/Function/Resource Environment", "PerItem/Function/CurrentVersion/Resource Description",
                        "PerItem/FunctionRole/DefaultPolicy/Resource PolicyDocument")),
                change(ExpiryMode.WINDOWED, EXPIRY_EVENT_BUS_NAME, BUS, Set.of(
                        "Windowed/Function/Resource Environment", "Windowed/Function/CurrentVersion/Resource Description",
                        "Windowed/BucketFunction/CurrentVersion/Resource Description",
                        "Windowed/FunctionRole/DefaultPolicy/Resource PolicyDocument")),
                change(ExpiryMode.PER_ITEM, LAG_ALARM_THRESHOLD_MS, "2500", Set.of(
                        "PerItem/ExpiryLagAlarm/Resource Threshold", "PerItem/ExpiryLagAlarm/Resource AlarmDescription")),
                change(ExpiryMode.PER_ITEM, ALARM_TOPIC_ARN, TOPIC_ARN, alarmActions("PerItem", List.of("IteratorAge",
                        "FunctionErrors", "DeadLetters", "ExecutionsFailed", "ExecutionsTimedOut", "ExpiryLag",
                        "BackstopWins"))),
                change(ExpiryMode.WINDOWED, ALARM_TOPIC_ARN, TOPIC_ARN, alarmActions("Windowed", List.of("IteratorAge",
                        "FunctionErrors", "DeadLetters", "ExecutionsFailed", "ExecutionsTimedOut", "BucketFunctionErrors",
                        "ExpiryLag", "BackstopWins", "BucketHealing/BucketsAbandoned",
                        "BucketHealing/HealingDeliveriesFailed"))),
                change(ExpiryMode.PER_ITEM, TRACING, "true", Set.of(
                        "PerItem/Function/Resource TracingConfig", "PerItem/Function/CurrentVersion/Resource Description",
                        "PerItem/FunctionRole/DefaultPolicy/Resource PolicyDocument",
                        "PerItem/StateMachine/Resource TracingConfiguration",
                        "PerItem/StateMachine/Role/DefaultPolicy/Resource PolicyDocument",
                        "PerItem/Backfill/Function/Resource TracingConfig",
                        "PerItem/Backfill/FunctionRole/DefaultPolicy/Resource PolicyDocument",
                        "PerItem/Backfill/StateMachine/Resource TracingConfiguration",
                        "PerItem/Backfill/StateMachine/Role/DefaultPolicy/Resource PolicyDocument")),
                change(ExpiryMode.WINDOWED, TRACING, "true", Set.of(
                        "Windowed/Function/Resource TracingConfig", "Windowed/Function/CurrentVersion/Resource Description",
                        "Windowed/FunctionRole/DefaultPolicy/Resource PolicyDocument",
                        "Windowed/BucketFunction/Resource TracingConfig",
                        "Windowed/BucketFunction/CurrentVersion/Resource Description",
                        "Windowed/BucketFunctionRole/DefaultPolicy/Resource PolicyDocument",
                        "Windowed/BucketStateMachine/Resource TracingConfiguration",
                        "Windowed/BucketStateMachine/Role/DefaultPolicy/Resource PolicyDocument",
                        "Windowed/BucketRunnerStateMachine/Resource TracingConfiguration",
                        "Windowed/BucketRunnerStateMachine/Role/DefaultPolicy/Resource PolicyDocument",
                        "Windowed/Backfill/Function/Resource TracingConfig",
                        "Windowed/Backfill/FunctionRole/DefaultPolicy/Resource PolicyDocument",
                        "Windowed/Backfill/StateMachine/Resource TracingConfiguration",
                        "Windowed/Backfill/StateMachine/Role/DefaultPolicy/Resource PolicyDocument")),
                change(ExpiryMode.WINDOWED, LOG_LEVEL, "DEBUG", Set.of(
                        "Windowed/Function/Resource Environment", "Windowed/Function/CurrentVersion/Resource Description",
                        "Windowed/BucketFunction/Resource Environment",
                        "Windowed/BucketFunction/CurrentVersion/Resource Description",
                        "Windowed/Backfill/Function/Resource Environment")),
                change(ExpiryMode.WINDOWED, LOG_RETENTION_DAYS, "90", Set.of(
                        "Windowed/FunctionLogs/Resource RetentionInDays",
                        "Windowed/StateMachineLogs/Resource RetentionInDays",
                        "Windowed/BucketFunctionLogs/Resource RetentionInDays",
                        "Windowed/Backfill/FunctionLogs/Resource RetentionInDays",
                        "Windowed/Backfill/StateMachineLogs/Resource RetentionInDays")));
    }

    /**
     * Every parameter, changed alone from the defaults, changes exactly these properties (resource path under
     * the stack, then property) and nothing else. IncludeOldImage and Mode have their own tests: one needs
     * another parameter set first, the other swaps whole resources.
     */
    @ParameterizedTest(name = "{0} {1}={2}")
    @MethodSource("parameters")
    void parameter_changesExactlyWhatItShould(ExpiryMode mode, String parameter, String value, Set<String> expected) {
        Map<String, String> defaults = new HashMap<>(REQUIRED);
        defaults.put(MODE, mode.label());
        Map<String, String> changed = new HashMap<>(defaults);
        changed.put(parameter, value);

        assertThat(changedProperties(defaults, changed)).isEqualTo(new TreeSet<>(expected));
    }

    @Test
    void includeOldImage_addsTheOldImageFlag_onlyWhereExpiryEventsAreOn() {
        Map<String, String> events = new HashMap<>(REQUIRED);
        events.put(EXPIRY_EVENT_BUS_NAME, BUS);
        Map<String, String> withImages = new HashMap<>(events);
        withImages.put(INCLUDE_OLD_IMAGE, "true");

        assertThat(changedProperties(events, withImages)).containsExactlyInAnyOrder(
                "PerItem/Function/Resource Environment", "PerItem/Function/CurrentVersion/Resource Description");
        Map<String, String> imagesWithoutEvents = new HashMap<>(REQUIRED);
        imagesWithoutEvents.put(INCLUDE_OLD_IMAGE, "true");
        assertThatThrownBy(() -> RenderedTemplate.render(template, imagesWithoutEvents))
                .hasMessageContaining("set ExpiryEventBusName too");
    }

    @Test
    void mode_createsOneModesResourcesOnly_andTheOutputsFollowIt() {
        Map<String, String> perItem = new HashMap<>(REQUIRED);
        Map<String, String> windowed = new HashMap<>(REQUIRED);
        windowed.put(MODE, ExpiryMode.WINDOWED.label());

        JsonNode perItemRendered = RenderedTemplate.render(template, perItem);
        JsonNode windowedRendered = RenderedTemplate.render(template, windowed);
        assertThat(paths(perItemRendered)).allMatch(path -> path.startsWith("PerItem/"))
                .contains("PerItem/StateMachine/Resource");
        assertThat(paths(windowedRendered)).allMatch(path -> path.startsWith("Windowed/"))
                .contains("Windowed/ScheduleIndex/Resource", "Windowed/BucketStateMachine/Resource");
        assertThat(perItemRendered.at("/Outputs/StateMachineArn/Value/Ref").asText())
                .isEqualTo(logicalId(stack.expiry(ExpiryMode.PER_ITEM).stateMachine()));
        assertThat(windowedRendered.at("/Outputs/StateMachineArn/Value/Ref").asText())
                .isEqualTo(logicalId(stack.expiry(ExpiryMode.WINDOWED).stateMachine()));
        assertThat(perItemRendered.path("Outputs").has("ScheduleIndexTableName")).isFalse();
        assertThat(windowedRendered.path("Outputs").has("ScheduleIndexTableName")).isTrue();
    }

    @Test
    void parameters_haveDefaults_butTheTableAndItsTtlAttribute() {
        Set<String> required = new TreeSet<>();
        template.path("Parameters").fields().forEachRemaining(p -> {
            if (!p.getValue().has("Default")) {
                required.add(p.getKey());
            }
        });
        assertThat(required).containsExactly(TABLE_STREAM_ARN, TTL_ATTRIBUTE);
        assertThatThrownBy(() -> RenderedTemplate.render(template, Map.of(TABLE_STREAM_ARN, STREAM_ARN)))
                .hasMessageContaining(TTL_ATTRIBUTE);
        Map<String, String> badArn = new HashMap<>(REQUIRED);
        badArn.put(TABLE_STREAM_ARN, "arn:aws:dynamodb:eu-west-1:123456789012:table/orders");
        assertThatThrownBy(() -> RenderedTemplate.render(template, badArn)).hasMessageContaining(TABLE_STREAM_ARN);
        Map<String, String> quotedTtl = new HashMap<>(REQUIRED);
        quotedTtl.put(TTL_ATTRIBUTE, "valid\"Until");
        assertThatThrownBy(() -> RenderedTemplate.render(template, quotedTtl)).hasMessageContaining(TTL_ATTRIBUTE);
    }

    @Test
    void versionDescription_fitsLambdasLimit_withTheLongestValuesTheParametersAllow() {
        String longest = "x".repeat(TemplateParameters.MAX_NAME_LENGTH);
        Map<String, String> values = new HashMap<>(REQUIRED);
        values.put(TTL_ATTRIBUTE, longest);
        values.put(EXPIRY_EVENT_BUS_NAME, longest);
        values.put(CANCEL_STALE, "false");
        values.put(MAX_CONCURRENCY, "256");
        values.put(BUCKET_DELETE_CONCURRENCY, "256");
        values.put(LOG_LEVEL, "DEBUG");
        values.put(TRACING, "false");
        values.put(INCLUDE_OLD_IMAGE, "false");
        JsonNode version = RenderedTemplate.render(template, values).path("Resources")
                .path(logicalId(stack.expiry(ExpiryMode.PER_ITEM).function().getCurrentVersion()));

        String description = version.at("/Properties/Description").asText();
        assertThat(description).startsWith("Punctual " + PunctualVersion.current()).contains(longest);
        assertThat(description.length()).isLessThanOrEqualTo(TemplateParameters.MAX_VERSION_DESCRIPTION);
    }

    @Test
    void template_isForCloudFormationPackage_notForACdkBootstrapStack() {
        String text = template.toString();
        assertThat(template.path("Parameters").has("BootstrapVersion")).isFalse();
        assertThat(template.has("Rules") && template.path("Rules").has("CheckBootstrapVersion")).isFalse();
        assertThat(text).doesNotContain("cdk-hnb659fds", "AssetParameters", PackagedCodeSynthesizer.UNPACKAGED,
                "aws:cdk:path", "aws:asset:path", "AWS::CDK::Metadata");
        for (JsonNode function : TemplateJson.of(template).ofType("AWS::Lambda::Function").values()) {
            assertThat(function.path("Code").asText()).isEqualTo(stack.codePath())
                    .matches("punctual-functions-[0-9a-f]{64}\\.jar");
        }
        assertThat(text).doesNotContain("123456789012", "eu-west-1", "us-east-1", TABLE);
    }

    @Test
    void template_statesItsPunctualVersion() {
        assertThat(template.path("Description").asText()).startsWith("Punctual " + PunctualVersion.current() + ":");
        assertThat(template.at("/Outputs/PunctualVersion/Value").asText()).isEqualTo(PunctualVersion.current());
    }

    @Test
    void everyResource_belongsToOneMode() {
        template.path("Resources").fields().forEachRemaining(resource -> assertThat(
                resource.getValue().path("Condition").asText()).as(resource.getKey())
                .isIn("IsPerItem", "IsWindowed", "PerItemBackfillOnCreate", "WindowedBackfillOnCreate"));
        assertThat(template.at("/Conditions/WindowedBackfillOnCreate/Fn::And/0/Condition").asText()).isEqualTo("IsWindowed");
    }

    @Test
    void backfillOnCreate_addsTheModesStartOfOneRun_andTheGrantItNeeds_andNothingElse() {
        for (ExpiryMode mode : ExpiryMode.values()) {
            Map<String, String> off = new HashMap<>(REQUIRED);
            off.put(MODE, mode.label());
            Map<String, String> on = new HashMap<>(off);
            on.put(BACKFILL_ON_CREATE, "true");
            String prefix = PunctualTemplateStack.pascalCase(mode) + "/Backfill/";

            assertThat(changedProperties(off, on)).as(mode.label()).containsExactlyInAnyOrder(
                    prefix + "StartOnCreate/Default ServiceToken",
                    prefix + "StartOnCreate/Default " + BackfillWorkflow.ON_CREATE_STATE_MACHINE_ARN,
                    prefix + "StartOnCreate/Default " + BackfillWorkflow.ON_CREATE_TABLE,
                    prefix + "FunctionRole/DefaultPolicy/Resource PolicyDocument");
            assertThat(paths(RenderedTemplate.render(template, off))).as("off by default")
                    .doesNotContain(prefix + "StartOnCreate/Default");
        }
    }

    @Test
    void iam_grantsNothingOnAnyResource_butWhatHasNoResourceLevelPermission() {
        for (boolean tracing : List.of(false, true)) {
            for (ExpiryMode mode : ExpiryMode.values()) {
                Map<String, String> values = new HashMap<>(REQUIRED);
                values.putAll(CHANGED);
                values.put(TRACING, Boolean.toString(tracing));
                values.put(MODE, mode.label());
                TemplateJson rendered = TemplateJson.of(RenderedTemplate.render(template, values));
                assertThat(WildcardGrants.actionsOnAnyResource(rendered.allStatements()))
                        .as("%s, tracing %s", mode, tracing).isSubsetOf(WildcardGrants.JUSTIFIED);
            }
        }
    }

    /** The properties (resource path and property name, or "Outputs" and name) that differ between two renderings. */
    private static Set<String> changedProperties(Map<String, String> before, Map<String, String> after) {
        JsonNode first = RenderedTemplate.render(template, before);
        JsonNode second = RenderedTemplate.render(template, after);
        Map<String, String> paths = stackNormalizer().paths();
        Set<String> changed = new TreeSet<>();
        Set<String> ids = new TreeSet<>();
        first.path("Resources").fieldNames().forEachRemaining(ids::add);
        second.path("Resources").fieldNames().forEachRemaining(ids::add);
        for (String id : ids) {
            JsonNode a = first.path("Resources").path(id).path("Properties");
            JsonNode b = second.path("Resources").path(id).path("Properties");
            Set<String> names = new TreeSet<>();
            a.fieldNames().forEachRemaining(names::add);
            b.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                if (!a.path(name).equals(b.path(name))) {
                    changed.add(paths.getOrDefault(id, id) + " " + name);
                }
            }
        }
        Set<String> outputs = new TreeSet<>();
        first.path("Outputs").fieldNames().forEachRemaining(outputs::add);
        second.path("Outputs").fieldNames().forEachRemaining(outputs::add);
        outputs.stream().filter(name -> !first.path("Outputs").path(name).equals(second.path("Outputs").path(name)))
                .forEach(name -> changed.add("Outputs " + name));
        return changed;
    }

    private static Set<String> paths(JsonNode rendered) {
        Map<String, String> paths = stackNormalizer().paths();
        Set<String> found = new TreeSet<>();
        rendered.path("Resources").fieldNames().forEachRemaining(id -> found.add(paths.getOrDefault(id, id)));
        return found;
    }

    private static Arguments change(ExpiryMode mode, String parameter, String value, Set<String> expected) {
        return Arguments.of(mode, parameter, value, expected);
    }

    private static Set<String> alarmActions(String mode, List<String> alarms) {
        Set<String> expected = new TreeSet<>();
        alarms.forEach(alarm -> {
            expected.add(mode + "/" + alarm + "Alarm/Resource AlarmActions");
            expected.add(mode + "/" + alarm + "Alarm/Resource OKActions");
        });
        return expected;
    }

    private static TemplateNormalizer stackNormalizer() {
        return new TemplateNormalizer(stack, table(stack));
    }

    private static TemplateNormalizer templateNormalizer(ExpiryMode mode) {
        PunctualExpiry expiry = stack.expiry(mode);
        JsonNode baseName = TemplateJson.JSON.valueToTree(stack.resolve(
                expiry.stateMachineName().substring(0, expiry.stateMachineName().length() - suffix(mode).length())));
        return new TemplateNormalizer(expiry, table(stack))
                .replacingValue(baseName, TemplateNormalizer.STATE_MACHINE_NAME);
    }

    private static String baseName(PunctualExpiry expiry) {
        String name = expiry.stateMachineName();
        return name.substring(0, name.length() - suffix(expiry.mode()).length());
    }

    private static String suffix(ExpiryMode mode) {
        return mode == ExpiryMode.WINDOWED ? PunctualExpiry.BUCKET_STATE_MACHINE_SUFFIX : "";
    }

    private static ITable table(Stack scope) {
        return (ITable) scope.getNode().findChild("Table");
    }

    private static String logicalId(IConstruct construct) {
        CfnElement element = (CfnElement) construct.getNode().getDefaultChild();
        return stack.resolve(element.getLogicalId()).toString();
    }

    /**
     * The construct in a stack of its own, as a Java CDK app would use it, with the options the template's
     * parameters stand for: all defaults, or every option as {@link #CHANGED} sets it.
     */
    private static Stack referenceStack(ExpiryMode mode, boolean changed) {
        App app = new App();
        Stack reference = new Stack(app, "Reference");
        ITable table = PunctualExpiry.importTable(reference, "Table", TABLE, STREAM_ARN);
        PunctualExpiryProps.Builder props = PunctualExpiryProps.builder().table(table).ttlAttribute(TTL).mode(mode)
                .backfillOnCreate(changed);
        if (changed) {
            props.batchSize(500).parallelizationFactor(4).maxRetryAttempts(3).maxRecordAge(Duration.ofHours(2))
                    .maxConcurrency(64)
                    .expiryEvents(EventBus.fromEventBusName(reference, "Bus", BUS)).includeOldImage(true)
                    .lagAlarmThreshold(Duration.ofMillis(2500))
                    .alarmTopic(Topic.fromTopicArn(reference, "Topic", TOPIC_ARN))
                    .tracing(true).logLevel(ApplicationLogLevel.DEBUG).logRetention(RetentionDays.THREE_MONTHS);
            if (mode == ExpiryMode.PER_ITEM) {
                props.cancelStale(false);
            } else {
                props.bucketDeleteConcurrency(128);
            }
        }
        new PunctualExpiry(reference, "Expiry", props.build());
        return reference;
    }
}
