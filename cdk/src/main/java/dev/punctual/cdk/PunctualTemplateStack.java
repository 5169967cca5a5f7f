package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.PunctualVersion;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
    private final PunctualExpiry perItem;
    private final PunctualExpiry windowed;

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
        this.perItem = createExpiry("PerItem", ExpiryMode.PER_ITEM, table, bus, topic, functionJar);
        this.windowed = createExpiry("Windowed", ExpiryMode.WINDOWED, table, bus, topic, functionJar);
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
        return mode == ExpiryMode.WINDOWED ? windowed : perItem;
    }

    private PunctualExpiry createExpiry(String id, ExpiryMode mode, ITable table, IEventBus bus, ITopic topic,
            Path functionJar) {
        PunctualExpiryProps props = parameters.props(mode, table, bus, topic, functionJar);
        PunctualExpiry expiry = new PunctualExpiry(this, id, props);
        Aspects.of(expiry).add(new ConditionOnResources(parameters.modeCondition(mode)));
        parameters.applyTo(expiry, props, codePath);
        // cfn-lint checks each Task's Resource against ^arn:aws: before DefinitionSubstitutions apply, so the
        // definition's partition-agnostic arn:${Partition}:states:::... reads as an error (E3601). The build
        // lints the definition apart, with the partition substituted (PackagedTemplateIT).
        for (Construct machine : List.of(expiry.stateMachine(), expiry.backfill().stateMachine())) {
            ((CfnResource) machine.getNode().getDefaultChild()).addMetadata("cfn-lint",
                    Map.of("config", Map.of("ignore_checks", List.of(CFN_LINT_DEFINITION_CHECK))));
        }
        return expiry;
    }

    private void createOutputs() {
        String perItemCondition = parameters.modeCondition(ExpiryMode.PER_ITEM).getLogicalId();
        StackOutputs.add(this, parameters.tableName(),
                byMode(perItemCondition, perItem.stateMachine().getStateMachineArn(),
                        windowed.stateMachine().getStateMachineArn()),
                byMode(perItemCondition, perItem.function().getFunctionName(), windowed.function().getFunctionName()),
                byMode(perItemCondition, perItem.deadLetterQueue().getQueueUrl(),
                        windowed.deadLetterQueue().getQueueUrl()),
                byMode(perItemCondition, perItem.backfill().stateMachine().getStateMachineArn(),
                        windowed.backfill().stateMachine().getStateMachineArn()),
                byMode(perItemCondition, perItem.backfill().progressTable().getTableName(),
                        windowed.backfill().progressTable().getTableName()),
                windowed.scheduleIndex().map(Table::getTableName), parameters.modeCondition(ExpiryMode.WINDOWED));
        CfnOutput.Builder.create(this, "PunctualVersion").value(PunctualVersion.current())
                .description("The Punctual release this stack runs (also the punctual:version tag and punctualVersion"
                        + " on every log line)")
                .build();
    }

    private static String byMode(String perItemCondition, String perItemValue, String windowedValue) {
        return Fn.conditionIf(perItemCondition, perItemValue, windowedValue).toString();
    }
}
