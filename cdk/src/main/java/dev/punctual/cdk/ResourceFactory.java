package dev.punctual.cdk;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.AssetHashType;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SnapStartConf;
import software.amazon.awscdk.services.lambda.Tracing;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.s3.assets.AssetOptions;
import software.amazon.awscdk.services.stepfunctions.DefinitionBody;
import software.amazon.awscdk.services.stepfunctions.LogLevel;
import software.amazon.awscdk.services.stepfunctions.LogOptions;
import software.amazon.awscdk.services.stepfunctions.StateMachine;
import software.amazon.awscdk.services.stepfunctions.StateMachineType;
import software.constructs.Construct;

/**
 * How {@link PunctualExpiry} and its modes ({@link ModeResources}) build their resources alike: every
 * function from the one bundle, on the same runtime with SnapStart, behind a published alias; every
 * role of our own writing to its own log group only; every state machine a Standard one with its ASL
 * file inlined and ERROR-level logs without execution data. All of them are children of the construct,
 * so their logical IDs do not depend on which class builds them.
 */
final class ResourceFactory {

    private final Construct scope;
    private final PunctualExpiryProps props;
    private final Code functionCode;
    private final LogGroup stateMachineLogs;

    ResourceFactory(Construct scope, PunctualExpiryProps props) {
        this(scope, props, Code.fromAsset(props.functionJar().toString(), AssetOptions.builder()
                // The jar's own content hash: the same jar is the same asset whatever path it was read
                // from, so a rebuild that changes nothing deploys nothing. Every function shares it.
                .assetHashType(AssetHashType.CUSTOM)
                .assetHash(FunctionBundle.assetHash(props.functionJar()))
                .build()));
    }

    private ResourceFactory(Construct scope, PunctualExpiryProps props, Code functionCode) {
        this.scope = scope;
        this.props = props;
        this.functionCode = functionCode;
        this.stateMachineLogs = logGroup("StateMachineLogs");
    }

    /**
     * A factory for the resources of {@code part}, a construct within this one that groups them (the
     * backfill): the same bundle and props, and its own state machine log group.
     */
    ResourceFactory within(Construct part) {
        return new ResourceFactory(part, props, functionCode);
    }

    Construct scope() {
        return scope;
    }

    PunctualExpiryProps props() {
        return props;
    }

    /** The state machine's log group (ERROR level, no execution data). */
    LogGroup stateMachineLogs() {
        return stateMachineLogs;
    }

    /** A log group kept as long as {@link PunctualExpiryProps#logRetention()} says. */
    LogGroup logGroup(String id) {
        return LogGroup.Builder.create(scope, id).retention(props.logRetention()).build();
    }

    /**
     * A role for a function of ours instead of Lambda's default, which attaches the
     * AWSLambdaBasicExecutionRole managed policy (logs on every log group): this one writes to
     * {@code logs} only.
     */
    Role functionRole(String id, String description, LogGroup logs) {
        Role role = Role.Builder.create(scope, id)
                .assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description(description)
                .build();
        logs.grantWrite(role);
        return role;
    }

    /**
     * A function from the bundle: Java 21 on ARM with SnapStart, Powertools' service name and log level,
     * C1-only JIT ({@link PunctualExpiry#JAVA_TOOL_OPTIONS}) and tracing as the props say.
     *
     * @param environment the function's own variables; the shared ones are added after them
     */
    Function function(String id, String description, String handler, int memoryMb, Duration timeout, Role role,
            LogGroup logs, Map<String, String> environment) {
        return functionBuilder(id, description, handler, memoryMb, timeout, role, logs, environment)
                .snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS)
                .build();
    }

    /**
     * As {@link #function}, without SnapStart: for a function that runs rarely and is invoked by its own
     * ARN, never through a published version (the backfill), where a few cold starts cost less than
     * publishing a version on every deployment.
     */
    Function functionWithoutSnapStart(String id, String description, String handler, int memoryMb, Duration timeout,
            Role role, LogGroup logs, Map<String, String> environment) {
        return functionBuilder(id, description, handler, memoryMb, timeout, role, logs, environment).build();
    }

    private Function.Builder functionBuilder(String id, String description, String handler, int memoryMb,
            Duration timeout, Role role, LogGroup logs, Map<String, String> environment) {
        Map<String, String> all = new LinkedHashMap<>(environment);
        all.put("POWERTOOLS_SERVICE_NAME", PunctualExpiry.SERVICE_NAME);
        all.put("POWERTOOLS_LOG_LEVEL", props.logLevel().name());
        all.put("JAVA_TOOL_OPTIONS", PunctualExpiry.JAVA_TOOL_OPTIONS);
        return Function.Builder.create(scope, id)
                .description(description)
                .runtime(Runtime.JAVA_21)
                .architecture(Architecture.ARM_64)
                .handler(handler)
                .code(functionCode)
                .memorySize(memoryMb)
                .timeout(timeout)
                .role(role)
                .logGroup(logs)
                .tracing(props.tracing() ? Tracing.ACTIVE : Tracing.DISABLED)
                .environment(all);
    }

    /** An alias of the function's current version, so what calls it always runs a SnapStart snapshot. */
    Alias publish(Function target, String id, String caller) {
        Alias published = Alias.Builder.create(scope, id).aliasName(PunctualExpiry.ALIAS_NAME)
                .version(target.getCurrentVersion()).build();
        Annotations.of(target).acknowledgeWarning("@aws-cdk/aws-lambda:snapStartRequirePublish",
                "Published: " + caller);
        return published;
    }

    /** A Standard machine with its ASL file inlined, so the template shows the very text the tests run. */
    StateMachine standardStateMachine(String id, String name, String comment, String definitionTemplate,
            Map<String, String> substitutions) {
        return stateMachine(id, name, StateMachineType.STANDARD, comment, definitionTemplate, substitutions);
    }

    /**
     * A table of Punctual's own, keyed by two strings: on-demand, encrypted with the AWS managed key (every
     * use of the key is in CloudTrail), point-in-time recovery, and destroyed with the stack, since what it
     * holds is worthless without the construct that reads it.
     */
    Table.Builder ownTable(String id, String partitionKey, String sortKey) {
        return Table.Builder.create(scope, id)
                .partitionKey(Attribute.builder().name(partitionKey).type(AttributeType.STRING).build())
                .sortKey(Attribute.builder().name(sortKey).type(AttributeType.STRING).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .encryption(TableEncryption.AWS_MANAGED)
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder()
                        .pointInTimeRecoveryEnabled(true).build())
                .removalPolicy(RemovalPolicy.DESTROY);
    }

    /**
     * An Express machine with its ASL file inlined, logging as the Standard ones do: its log is the only
     * record AWS keeps of an Express execution, and every failure reaches it.
     */
    StateMachine expressStateMachine(String id, String name, String comment, String definitionTemplate,
            Map<String, String> substitutions) {
        return stateMachine(id, name, StateMachineType.EXPRESS, comment, definitionTemplate, substitutions);
    }

    private StateMachine stateMachine(String id, String name, StateMachineType type, String comment,
            String definitionTemplate, Map<String, String> substitutions) {
        return StateMachine.Builder.create(scope, id)
                .stateMachineName(name)
                .stateMachineType(type)
                .comment(comment)
                .definitionBody(DefinitionBody.fromString(definitionTemplate))
                // Sorted: the workflows give Map.of, whose order changes from one JVM to the next.
                .definitionSubstitutions(new TreeMap<>(substitutions))
                // ERROR only and no execution data: item keys must not reach logs, and a successful
                // expiry has nothing to report that the execution history (or the bucket function's log)
                // does not already hold.
                .logs(LogOptions.builder().destination(stateMachineLogs).level(LogLevel.ERROR)
                        .includeExecutionData(false).build())
                .tracingEnabled(props.tracing())
                .build();
    }

    /** Allows {@code actions} on {@code resources}, exactly. */
    static PolicyStatement allow(List<String> actions, List<String> resources) {
        return PolicyStatement.Builder.create().effect(Effect.ALLOW).actions(actions).resources(resources).build();
    }

    /** Allows {@code actions} on exactly {@code resource}. */
    static PolicyStatement allow(List<String> actions, String resource) {
        return PolicyStatement.Builder.create().effect(Effect.ALLOW).actions(actions).resources(List.of(resource))
                .build();
    }
}
