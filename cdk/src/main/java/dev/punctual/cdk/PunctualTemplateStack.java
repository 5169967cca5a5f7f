package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.PunctualVersion;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.CfnResource;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.events.EventBus;
import software.amazon.awscdk.services.events.IEventBus;
import software.amazon.awscdk.services.sns.ITopic;
import software.amazon.awscdk.services.sns.Topic;
import software.constructs.Construct;
import software.constructs.IConstruct;

/**
 * Punctual as one CloudFormation template for any toolchain: both modes' {@link PunctualExpiry} constructs,
 * each behind its {@code Mode} condition, with every production choice of {@link PunctualExpiryProps} a
 * parameter ({@link TemplateParameters}). Nothing account-, Region- or table-specific is in it; the
 * functions' code is named by a path relative to the template, for {@code aws cloudformation package}.
 * {@link PackagedTemplate} writes it with that code beside it.
 */
public final class PunctualTemplateStack extends Stack {

    /** The template's file name in the packaged artifact. */
    public static final String TEMPLATE_FILE = "punctual.template.json";

    /**
     * Context for an app that only renders this template: no CDK analytics resource, no construct paths or
     * asset paths in metadata (they mean nothing outside this build), and the jar is not copied into the
     * cloud assembly (the packaging copies it beside the template instead).
     */
    static final Map<String, Object> CONTEXT = Map.of(
            "aws:cdk:version-reporting", false,
            "aws:cdk:enable-path-metadata", false,
            "aws:cdk:enable-asset-metadata", false,
            "aws:cdk:disable-asset-staging", true);

    /** cfn-lint's state machine definition check, which cannot read {@code DefinitionSubstitutions}. */
    static final String CFN_LINT_DEFINITION_CHECK = "E3601";

    private final TemplateParameters parameters;
    private final String codePath;
    /** One construct per mode, each created only where the {@code Mode} parameter names its mode. */
    private final Map<ExpiryMode, PunctualExpiry> expiries = new EnumMap<>(ExpiryMode.class);

    /**
     * @param functionJar the Lambda bundle both modes' functions run; the template names it
     *     {@link #codePath(Path)}, relative to itself
     */
    public PunctualTemplateStack(Construct scope, String id, Path functionJar) {
        super(scope, id, StackProps.builder()
                .synthesizer(new PackagedCodeSynthesizer())
                .description("Punctual " + PunctualVersion.current() + ": second-accurate expiry for one DynamoDB"
                        + " table (stream, function, Step Functions, alarms). Package with `aws cloudformation"
                        + " package`, then deploy once per table.")
                .build());
        this.parameters = new TemplateParameters(this);
        this.codePath = codePath(functionJar);
        ITable table = PunctualExpiry.importTable(this, "Table", parameters.tableName(), parameters.tableStreamArn());
        IEventBus bus = EventBus.fromEventBusName(this, "ExpiryEventBus", parameters.expiryEventBusName());
        ITopic topic = Topic.fromTopicArn(this, "AlarmTopic", parameters.alarmTopicArn());
        for (ExpiryMode mode : ExpiryMode.values()) {
            expiries.put(mode, createExpiry(pascalCase(mode), mode, table, bus, topic, functionJar));
        }
        createOutputs();
    }

    /** The template for the bundle punctual-cdk carries, as its own app with {@link #CONTEXT}. */
    static PunctualTemplateStack create(Path functionJar) {
        App app = new App(AppProps.builder().context(CONTEXT).build());
        return new PunctualTemplateStack(app, "Punctual", functionJar);
    }

    /**
     * The code's path relative to the template: named by the jar's SHA-256, so a new build is a new path,
     * which gives each function a new version resource and so a new published (SnapStart) version.
     */
    public static String codePath(Path functionJar) {
        return "punctual-functions-" + FunctionBundle.assetHash(functionJar) + ".jar";
    }

    /** The code's path relative to the template, as the functions name it. */
    public String codePath() {
        return codePath;
    }

    /** The construct created when {@code Mode} is {@code mode}. */
    public PunctualExpiry expiry(ExpiryMode mode) {
        return expiries.get(mode);
    }

    private PunctualExpiry createExpiry(String id, ExpiryMode mode, ITable table, IEventBus bus, ITopic topic,
            Path functionJar) {
        PunctualExpiryProps props = parameters.props(mode, table, bus, topic, functionJar);
        PunctualExpiry expiry = new PunctualExpiry(this, id, props);
        Aspects.of(expiry).add(new ConditionOnResources(parameters.modeCondition(mode),
                Set.of(parameters.backfillOnCreateCondition(mode))));
        parameters.applyTo(expiry, props, codePath);
        // cfn-lint checks each Task's Resource against ^arn:aws: before DefinitionSubstitutions apply, so the
        // definition's partition-agnostic arn:${Partition}:states:::... reads as an error (E3601). The build
        // lints the definition apart, with the partition substituted (PackagedTemplateIT).
        List<IConstruct> machines = new ArrayList<>(List.of(expiry.stateMachine(), expiry.backfill().stateMachine()));
        expiry.bucketRunner().ifPresent(machines::add);
        for (IConstruct machine : machines) {
            ((CfnResource) machine.getNode().getDefaultChild()).addMetadata("cfn-lint",
                    Map.of("config", Map.of("ignore_checks", List.of(CFN_LINT_DEFINITION_CHECK))));
        }
        return expiry;
    }

    private void createOutputs() {
        // Only a mode with a schedule index (windowed) outputs its name, where that mode is chosen.
        ExpiryMode indexed = expiries.keySet().stream().filter(mode -> expiries.get(mode).scheduleIndex().isPresent())
                .findFirst().orElseThrow();
        StackOutputs.add(this, parameters.tableName(),
                byMode(expiry -> expiry.stateMachine().getStateMachineArn()),
                byMode(expiry -> expiry.function().getFunctionName()),
                byMode(expiry -> expiry.deadLetterQueue().getQueueUrl()),
                byMode(expiry -> expiry.backfill().stateMachine().getStateMachineArn()),
                byMode(expiry -> expiry.backfill().progressTable().getTableName()),
                expiries.get(indexed).scheduleIndex().map(Table::getTableName), parameters.modeCondition(indexed));
        CfnOutput.Builder.create(this, "PunctualVersion").value(PunctualVersion.current())
                .description("The Punctual release this stack runs (also the punctual:version tag and punctualVersion"
                        + " on every log line)")
                .build();
    }

    /**
     * The value of the construct the {@code Mode} parameter chose: {@code Fn::If} on each mode's condition
     * in turn, the last mode's value where no earlier condition holds.
     */
    private String byMode(java.util.function.Function<PunctualExpiry, String> value) {
        List<ExpiryMode> modes = List.copyOf(expiries.keySet());
        String chosen = value.apply(expiries.get(modes.get(modes.size() - 1)));
        for (int i = modes.size() - 2; i >= 0; i--) {
            chosen = Fn.conditionIf(parameters.modeCondition(modes.get(i)).getLogicalId(),
                    value.apply(expiries.get(modes.get(i))), chosen).toString();
        }
        return chosen;
    }

    /** A mode's label as a construct id: {@code per-item} is {@code PerItem}. */
    static String pascalCase(ExpiryMode mode) {
        StringBuilder id = new StringBuilder();
        for (String word : mode.label().split("-")) {
            id.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
        }
        return id.toString();
    }
}
