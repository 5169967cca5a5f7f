package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryEvents;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.PunctualVersion;
import dev.punctual.statemachine.StreamWiring;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.CfnCondition;
import software.amazon.awscdk.CfnParameter;
import software.amazon.awscdk.CfnResource;
import software.amazon.awscdk.CfnRule;
import software.amazon.awscdk.CfnRuleAssertion;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.ICfnConditionExpression;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.cloudwatch.CfnAlarm;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.events.IEventBus;
import software.amazon.awscdk.services.lambda.CfnEventSourceMapping;
import software.amazon.awscdk.services.lambda.CfnFunction;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.logs.CfnLogGroup;
import software.amazon.awscdk.services.sns.ITopic;
import software.amazon.awscdk.services.stepfunctions.CfnStateMachine;

/**
 * The packaged template's parameters: every production choice of {@link PunctualExpiryProps}, each with
 * its default and allowed values, and the conditions derived from them.
 *
 * <p>What a construct reads as text (the TTL attribute, ARNs, names) it is given as a parameter's token.
 * What it reads as a number, a boolean or an enum it is built with at the value that creates the most
 * (tracing, cancelStale, expiry events with old images, an alarm topic; numbers at their defaults), and
 * {@link #applyTo} then points exactly those properties at the parameters, or puts them behind a
 * condition. The construct stays the only definition of every resource; the test that renders this
 * template with parameter values and compares it with the construct's own synthesis keeps the two from
 * drifting.
 *
 * <p>A new option of the construct becomes a parameter here: one {@link CfnParameter}, its place in the
 * interface groups ({@link #interfaceMetadata}) and what it changes in {@link #applyTo} (a grant it
 * needs or makes unneeded: {@link ConditionalGrants}).
 */
final class TemplateParameters {

    static final String TABLE_STREAM_ARN = "TableStreamArn";
    static final String TTL_ATTRIBUTE = "TtlAttribute";
    static final String MODE = "Mode";
    static final String CANCEL_STALE = "CancelStale";
    static final String BATCH_SIZE = "BatchSize";
    static final String PARALLELIZATION_FACTOR = "ParallelizationFactor";
    static final String MAX_RETRY_ATTEMPTS = "MaxRetryAttempts";
    static final String MAX_RECORD_AGE_SECONDS = "MaxRecordAgeSeconds";
    static final String MAX_CONCURRENCY = "MaxConcurrency";
    static final String BUCKET_DELETE_CONCURRENCY = "BucketDeleteConcurrency";
    static final String EXPIRY_EVENT_BUS_NAME = "ExpiryEventBusName";
    static final String INCLUDE_OLD_IMAGE = "IncludeOldImage";
    static final String LAG_ALARM_THRESHOLD_MS = "LagAlarmThresholdMs";
    static final String ALARM_TOPIC_ARN = "AlarmTopicArn";
    static final String TRACING = "Tracing";
    static final String LOG_LEVEL = "LogLevel";
    static final String LOG_RETENTION_DAYS = "LogRetentionDays";
    static final String BACKFILL_ON_CREATE = "BackfillOnCreate";

    /**
     * Longest TTL attribute name and event bus name the template takes. Both are written into the
     * description of each function version (see {@link #versionDescription}), which Lambda caps at 256
     * characters; DynamoDB and EventBridge allow longer names, which only the Java construct accepts.
     */
    static final int MAX_NAME_LENGTH = 64;

    /** Lambda's limit on a version's description. */
    static final int MAX_VERSION_DESCRIPTION = 256;

    /** The retention periods CloudWatch Logs accepts, in days. */
    static final List<String> LOG_RETENTION_DAYS_ALLOWED = List.of("1", "3", "5", "7", "14", "30", "60", "90",
            "120", "150", "180", "365", "400", "545", "731", "1096", "1827", "2192", "2557", "2922", "3288", "3653");

    /** {@link PunctualExpiryProps}' default log retention (one month), in days. */
    static final int DEFAULT_LOG_RETENTION_DAYS = 30;

    private static final List<String> BOOLEANS = List.of("true", "false");

    private final Stack stack;
    private final CfnParameter tableStreamArn;
    private final CfnParameter ttlAttribute;
    private final CfnParameter mode;
    private final CfnParameter cancelStale;
    private final CfnParameter batchSize;
    private final CfnParameter parallelizationFactor;
    private final CfnParameter maxRetryAttempts;
    private final CfnParameter maxRecordAgeSeconds;
    private final CfnParameter maxConcurrency;
    private final CfnParameter bucketDeleteConcurrency;
    private final CfnParameter expiryEventBusName;
    private final CfnParameter includeOldImage;
    private final CfnParameter lagAlarmThresholdMs;
    private final CfnParameter alarmTopicArn;
    private final CfnParameter tracing;
    private final CfnParameter logLevel;
    private final CfnParameter logRetentionDays;
    private final CfnParameter backfillOnCreate;
    /** Per mode, the condition under which its construct is created: the {@code Mode} parameter names it. */
    private final Map<ExpiryMode, CfnCondition> modeConditions = new EnumMap<>(ExpiryMode.class);
    /** Per mode, the condition under which its construct starts a backfill on creation: its mode and BackfillOnCreate. */
    private final Map<ExpiryMode, CfnCondition> backfillOnCreateConditions = new EnumMap<>(ExpiryMode.class);
    private final CfnCondition cancelStaleOn;
    private final CfnCondition expiryEventsOn;
    private final CfnCondition includeOldImageOn;
    private final CfnCondition alarmTopicSet;
    private final CfnCondition tracingOn;

    TemplateParameters(Stack stack) {
        this.stack = stack;
        this.tableStreamArn = CfnParameter.Builder.create(stack, TABLE_STREAM_ARN).type("String")
                .description("The table's stream (LatestStreamArn from `aws dynamodb describe-table`), with"
                        + " NEW_AND_OLD_IMAGES; the table's name is read from it")
                .allowedPattern("^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:[0-9]{12}:table/[A-Za-z0-9_.-]{3,255}/stream/\\S+$")
                .constraintDescription("a DynamoDB stream ARN: arn:<partition>:dynamodb:<region>:<account>:table/<name>/stream/<label>")
                .build();
        this.ttlAttribute = CfnParameter.Builder.create(stack, TTL_ATTRIBUTE).type("String")
                .description("The table's TTL attribute (a Number of epoch seconds, as native TTL reads it; see"
                        + " `aws dynamodb describe-time-to-live`)")
                .allowedPattern("^[^\"\\\\\\x00-\\x1f]{1," + MAX_NAME_LENGTH + "}$")
                .constraintDescription("1 to " + MAX_NAME_LENGTH + " characters without quotes, backslashes or"
                        + " control characters")
                .build();
        this.mode = CfnParameter.Builder.create(stack, MODE).type("String")
                .defaultValue(ExpiryMode.PER_ITEM.label())
                .allowedValues(Arrays.stream(ExpiryMode.values()).map(ExpiryMode::label).toList())
                .description("per-item: one execution per item, each pending expiry visible by name. windowed:"
                        + " one execution per non-empty time bucket, same one-second accuracy, far cheaper and"
                        + " no open-execution ceiling. Changing it on a deployed stack replaces the resources")
                .build();
        this.cancelStale = booleanParameter(CANCEL_STALE, true, "Per-item mode: stop pending executions when an"
                + " item is deleted or its TTL changes or goes away (windowed mode never stops executions and"
                + " ignores this)");
        this.batchSize = numberParameter(BATCH_SIZE, StreamWiring.DEFAULT_BATCH_SIZE, 1,
                PunctualExpiryProps.MAX_BATCH_SIZE, "Stream records per invocation");
        this.parallelizationFactor = numberParameter(PARALLELIZATION_FACTOR, 1, 1,
                PunctualExpiryProps.MAX_PARALLELIZATION_FACTOR, "Concurrent batches per shard");
        this.maxRetryAttempts = numberParameter(MAX_RETRY_ATTEMPTS, StreamWiring.DEFAULT_MAX_RETRY_ATTEMPTS, 0,
                PunctualExpiryProps.MAX_RETRY_ATTEMPTS,
                "Retries of a failing batch before its records go to the dead-letter queue");
        this.maxRecordAgeSeconds = numberParameter(MAX_RECORD_AGE_SECONDS,
                StreamWiring.DEFAULT_MAX_RECORD_AGE.toSeconds(), PunctualExpiryProps.MIN_RECORD_AGE.toSeconds(),
                PunctualExpiryProps.MAX_RECORD_AGE.toSeconds(),
                "Stream records older than this go to the dead-letter queue");
        this.maxConcurrency = numberParameter(MAX_CONCURRENCY, StreamWiring.DEFAULT_MAX_CONCURRENCY, 1,
                StreamWiring.MAX_MAX_CONCURRENCY, "StartExecution calls in flight at once within a batch");
        this.bucketDeleteConcurrency = numberParameter(BUCKET_DELETE_CONCURRENCY,
                StreamWiring.DEFAULT_BUCKET_CONCURRENCY, 1, StreamWiring.MAX_MAX_CONCURRENCY, "Windowed mode: the"
                        + " bucket delete concurrency, DeleteItems the bucket function has in flight at once when a"
                        + " second's items fall due (per-item mode has no bucket function and ignores this)");
        this.expiryEventBusName = CfnParameter.Builder.create(stack, EXPIRY_EVENT_BUS_NAME).type("String")
                .defaultValue("")
                .allowedPattern("^[/.\\-_A-Za-z0-9]{0," + MAX_NAME_LENGTH + "}$")
                .constraintDescription("an event bus name in this account and Region (up to " + MAX_NAME_LENGTH
                        + " characters), or empty")
                .description("Publish an ItemExpired event (source punctual, detail type Item Expired) for every"
                        + " expiry to this bus, e.g. default; empty (the default) for no events")
                .build();
        this.includeOldImage = booleanParameter(INCLUDE_OLD_IMAGE, false, "Put the expired item's old image (user"
                + " data) into each expiry event; needs ExpiryEventBusName");
        this.lagAlarmThresholdMs = numberParameter(LAG_ALARM_THRESHOLD_MS,
                PunctualExpiryProps.DEFAULT_LAG_ALARM_THRESHOLD.toMillis(), 1, Duration.ofDays(1).toMillis(),
                "The expiry lag alarm fires when the lag's p99 over five minutes exceeds this many milliseconds");
        this.alarmTopicArn = CfnParameter.Builder.create(stack, ALARM_TOPIC_ARN).type("String")
                .defaultValue("")
                .allowedPattern("^(arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}(\\.fifo)?)?$")
                .constraintDescription("an SNS topic ARN, or empty")
                .description("Every alarm notifies this SNS topic when it fires and when it clears; empty (the"
                        + " default) for no notifications")
                .build();
        this.tracing = booleanParameter(TRACING, false, "X-Ray tracing for the functions and the state machine"
                + " (billed per trace)");
        this.logLevel = CfnParameter.Builder.create(stack, LOG_LEVEL).type("String")
                .defaultValue("INFO")
                .allowedValues(List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"))
                .description("The functions' log level")
                .build();
        this.logRetentionDays = CfnParameter.Builder.create(stack, LOG_RETENTION_DAYS).type("Number")
                .defaultValue(Integer.toString(DEFAULT_LOG_RETENTION_DAYS))
                .allowedValues(LOG_RETENTION_DAYS_ALLOWED)
                .description("Days the functions' and the state machine's logs are kept")
                .build();
        this.backfillOnCreate = booleanParameter(BACKFILL_ON_CREATE, false, "Start one backfill of the table when"
                + " the stack is created, so the items it already holds are scheduled too; false (the default)"
                + " deploys the backfill workflow and starts nothing (start it with the command in the"
                + " BackfillStateMachineArn output)");

        for (ExpiryMode expiryMode : ExpiryMode.values()) {
            modeConditions.put(expiryMode, condition("Is" + PunctualTemplateStack.pascalCase(expiryMode),
                    Fn.conditionEquals(mode.getValueAsString(), expiryMode.label())));
            backfillOnCreateConditions.put(expiryMode, condition(PunctualTemplateStack.pascalCase(expiryMode)
                    + "BackfillOnCreate", Fn.conditionAnd(modeConditions.get(expiryMode),
                    Fn.conditionEquals(backfillOnCreate.getValueAsString(), "true"))));
        }
        this.cancelStaleOn = condition("CancelStaleOn", Fn.conditionEquals(cancelStale.getValueAsString(), "true"));
        this.expiryEventsOn = condition("ExpiryEventsOn",
                Fn.conditionNot(Fn.conditionEquals(expiryEventBusName.getValueAsString(), "")));
        this.includeOldImageOn = condition("IncludeOldImageOn", Fn.conditionAnd(expiryEventsOn,
                Fn.conditionEquals(includeOldImage.getValueAsString(), "true")));
        this.alarmTopicSet = condition("AlarmTopicSet",
                Fn.conditionNot(Fn.conditionEquals(alarmTopicArn.getValueAsString(), "")));
        this.tracingOn = condition("TracingOn", Fn.conditionEquals(tracing.getValueAsString(), "true"));

        // The construct refuses old images without events; a template can only refuse them before deploying.
        CfnRule.Builder.create(stack, "OldImagesNeedExpiryEvents")
                .ruleCondition(Fn.conditionEquals(includeOldImage.getValueAsString(), "true"))
                .assertions(List.of(CfnRuleAssertion.builder()
                        .assertValue(Fn.conditionNot(Fn.conditionEquals(expiryEventBusName.getValueAsString(), "")))
                        .assertDescription("IncludeOldImage=true puts the item's old image into expiry events,"
                                + " which are off: set ExpiryEventBusName too (default for the account's default bus)")
                        .build()))
                .build();
        stack.getTemplateOptions().setMetadata(Map.of("AWS::CloudFormation::Interface", interfaceMetadata()));
    }

    /** The table's stream ARN. */
    String tableStreamArn() {
        return tableStreamArn.getValueAsString();
    }

    /** The table's name, read from its stream ARN ({@code arn:...:table/<name>/stream/<label>}). */
    String tableName() {
        return Fn.select(1, Fn.split("/", tableStreamArn()));
    }

    String expiryEventBusName() {
        return expiryEventBusName.getValueAsString();
    }

    /** The alarm topic's ARN where one is set; where none is, alarm actions list nothing. */
    String alarmTopicArn() {
        return Fn.conditionIf(alarmTopicSet.getLogicalId(), alarmTopicArn.getValueAsString(), Aws.NO_VALUE).toString();
    }

    /** The condition under which a mode's construct is created. */
    CfnCondition modeCondition(ExpiryMode expiryMode) {
        return modeConditions.get(expiryMode);
    }

    /** The condition under which a mode's construct starts a backfill on creation: narrower than its mode's. */
    CfnCondition backfillOnCreateCondition(ExpiryMode expiryMode) {
        return backfillOnCreateConditions.get(expiryMode);
    }

    /**
     * The props for one mode's construct: the table and TTL attribute as tokens, every other option at the
     * value that creates the most, for {@link #applyTo} to narrow.
     */
    PunctualExpiryProps props(ExpiryMode expiryMode, ITable table, IEventBus bus, ITopic topic, Path functionJar) {
        PunctualExpiryProps.Builder builder = PunctualExpiryProps.builder()
                .table(table)
                .ttlAttribute(ttlAttribute.getValueAsString())
                .mode(expiryMode)
                // The stack id's UUID: one template is deployed once per table into the same account and
                // Region, so a name fixed here would collide, and a stack name can be too long for one.
                .stateMachineBaseName(Fn.join("-", List.of("punctual", Fn.select(2, Fn.split("/", Aws.STACK_ID)))))
                .tracing(true)
                .alarmTopic(topic)
                .expiryEvents(bus)
                .includeOldImage(true)
                .backfillOnCreate(true)
                .functionJar(functionJar);
        if (expiryMode.stopsStaleExecutions()) {
            builder.cancelStale(true);
        }
        return builder.build();
    }

    /**
     * Points what {@link #props} could not carry as a token at the parameters, in the resources of one
     * mode's construct, and puts what only some settings create behind their conditions.
     *
     * @param codePath the functions' code, relative to the template
     */
    void applyTo(PunctualExpiry expiry, PunctualExpiryProps props, String codePath) {
        String busArn = props.expiryEvents().orElseThrow().getEventBusArn();

        CfnFunction function = CfnQueries.defaultChild(expiry.function(), CfnFunction.class);
        function.addPropertyOverride("Environment.Variables." + StreamWiring.ENV_MAX_CONCURRENCY,
                maxConcurrency.getValueAsString());
        if (expiry.mode().stopsStaleExecutions()) {
            function.addPropertyOverride("Environment.Variables." + StreamWiring.ENV_CANCEL_STALE,
                    cancelStale.getValueAsString());
        }
        function.addPropertyOverride("Environment.Variables." + ExpiryEvents.ENV_EVENT_BUS,
                CfnQueries.when(expiryEventsOn, busArn));
        function.addPropertyOverride("Environment.Variables." + ExpiryEvents.ENV_INCLUDE_OLD_IMAGE,
                CfnQueries.when(includeOldImageOn, "true"));
        expiry.bucketFunction().ifPresent(bucket -> CfnQueries.defaultChild(bucket, CfnFunction.class)
                .addPropertyOverride("Environment.Variables." + StreamWiring.ENV_MAX_CONCURRENCY,
                        bucketDeleteConcurrency.getValueAsString()));

        for (Function each : expiry.functions()) {
            CfnFunction cfn = CfnQueries.defaultChild(each, CfnFunction.class);
            cfn.addPropertyOverride("Code", codePath);
            cfn.addPropertyOverride("Environment.Variables.POWERTOOLS_LOG_LEVEL", logLevel.getValueAsString());
            cfn.addPropertyOverride("TracingConfig", CfnQueries.when(tracingOn, Map.of("Mode", "Active")));
            CfnQueries.defaultChild(each.getCurrentVersion(), CfnResource.class)
                    .addPropertyOverride("Description", versionDescription());
        }

        // The backfill function has no published version (no SnapStart): its code, log level and tracing only.
        CfnFunction backfill = CfnQueries.defaultChild(expiry.backfill().function(), CfnFunction.class);
        backfill.addPropertyOverride("Code", codePath);
        backfill.addPropertyOverride("Environment.Variables.POWERTOOLS_LOG_LEVEL", logLevel.getValueAsString());
        backfill.addPropertyOverride("TracingConfig", CfnQueries.when(tracingOn, Map.of("Mode", "Active")));

        // Every state machine: the mode's, windowed mode's bucket runner, the backfill's.
        CfnQueries.all(expiry, CfnStateMachine.class).forEach(stateMachine -> stateMachine.addPropertyOverride(
                "TracingConfiguration", Fn.conditionIf(tracingOn.getLogicalId(), Map.of("Enabled", true), Map.of("Enabled", false))));

        CfnEventSourceMapping mapping = CfnQueries.single(expiry, CfnEventSourceMapping.class);
        mapping.addPropertyOverride("BatchSize", batchSize.getValueAsNumber());
        mapping.addPropertyOverride("ParallelizationFactor", parallelizationFactor.getValueAsNumber());
        mapping.addPropertyOverride("MaximumRetryAttempts", maxRetryAttempts.getValueAsNumber());
        mapping.addPropertyOverride("MaximumRecordAgeInSeconds", maxRecordAgeSeconds.getValueAsNumber());

        CfnQueries.all(expiry, CfnLogGroup.class).forEach(group ->
                group.addPropertyOverride("RetentionInDays", logRetentionDays.getValueAsNumber()));

        CfnAlarm lag = CfnQueries.defaultChild(expiry.alarms().expiryLag(), CfnAlarm.class);
        lag.addPropertyOverride("Threshold", lagAlarmThresholdMs.getValueAsNumber());
        lag.addPropertyOverride("AlarmDescription", withThreshold(lag.getAlarmDescription(),
                props.lagAlarmThreshold().toMillis()));

        new ConditionalGrants(stack, tracingOn, expiryEventsOn, cancelStaleOn)
                .applyTo(expiry, backfillOnCreateConditions.get(expiry.mode()));
    }

    /**
     * A function version's description: the Punctual version and every setting in the function's
     * configuration that comes from a parameter. A version is only published when its resource is
     * replaced, and CloudFormation replaces it when its description changes: without this, a changed
     * parameter would update the function but leave the alias, which the stream and the state machine
     * invoke, on the old version.
     */
    String versionDescription() {
        return Fn.join("", List.of("Punctual ", PunctualVersion.current(),
                ": ttl=", ttlAttribute.getValueAsString(),
                " cancel=", cancelStale.getValueAsString(),
                " concurrency=", maxConcurrency.getValueAsString(),
                " bucketDeletes=", bucketDeleteConcurrency.getValueAsString(),
                " log=", logLevel.getValueAsString(),
                " tracing=", tracing.getValueAsString(),
                " bus=", expiryEventBusName.getValueAsString(),
                " oldImage=", includeOldImage.getValueAsString()));
    }

    /**
     * The lag alarm's description with its threshold read from the parameter: the construct's own text,
     * where the one mention of the threshold it was built with is replaced.
     */
    private String withThreshold(String description, long builtWithMillis) {
        String mention = " " + builtWithMillis + " ms";
        int at = description.indexOf(mention);
        if (at < 0 || description.indexOf(mention, at + 1) >= 0) {
            throw new IllegalStateException("The lag alarm's description should mention its threshold ('"
                    + mention.strip() + "') exactly once: " + description);
        }
        return Fn.join("", List.of(description.substring(0, at + 1), lagAlarmThresholdMs.getValueAsString(),
                description.substring(at + mention.length() - " ms".length())));
    }

    private Map<String, Object> interfaceMetadata() {
        return Map.of(
                "ParameterGroups", List.of(
                        group("Table", TABLE_STREAM_ARN, TTL_ATTRIBUTE),
                        group("Scheduling", MODE, CANCEL_STALE, MAX_CONCURRENCY, BUCKET_DELETE_CONCURRENCY,
                                BACKFILL_ON_CREATE),
                        group("Stream mapping", BATCH_SIZE, PARALLELIZATION_FACTOR, MAX_RETRY_ATTEMPTS,
                                MAX_RECORD_AGE_SECONDS),
                        group("Expiry events", EXPIRY_EVENT_BUS_NAME, INCLUDE_OLD_IMAGE),
                        group("Observability", LAG_ALARM_THRESHOLD_MS, ALARM_TOPIC_ARN, TRACING, LOG_LEVEL,
                                LOG_RETENTION_DAYS)));
    }

    private static Map<String, Object> group(String label, String... parameters) {
        return new TreeMap<>(Map.of("Label", Map.of("default", label), "Parameters", List.of(parameters)));
    }

    private CfnParameter booleanParameter(String name, boolean defaultValue, String description) {
        return CfnParameter.Builder.create(stack, name).type("String").defaultValue(Boolean.toString(defaultValue))
                .allowedValues(BOOLEANS).description(description).build();
    }

    private CfnParameter numberParameter(String name, long defaultValue, long min, long max, String description) {
        return CfnParameter.Builder.create(stack, name).type("Number").defaultValue(defaultValue).minValue(min)
                .maxValue(max).description(description).build();
    }

    private CfnCondition condition(String id, ICfnConditionExpression expression) {
        return CfnCondition.Builder.create(stack, id).expression(expression).build();
    }
}
