package dev.punctual.cdk;

import static dev.punctual.cdk.TemplateJson.JSON;
import static dev.punctual.cdk.TemplateJson.actions;
import static dev.punctual.cdk.TemplateJson.render;
import static dev.punctual.cdk.TemplateJson.renderedResources;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.statemachine.BackfillProgressTable;
import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.StateMachineDefinitions;
import dev.punctual.statemachine.StreamWiring;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.StackProps;
import software.constructs.IConstruct;

/**
 * The backfill the construct deploys, in both modes: its state machine (the same
 * {@code backfill.asl.json} the local runtime runs), its function and progress table with exact grants,
 * and the one run it starts by itself on first deployment (or not, with {@code backfillOnCreate(false)}).
 */
class BackfillTemplateTest {

    private static final String CUSTOM_RESOURCE = BackfillWorkflow.ON_CREATE_RESOURCE_TYPE;

    /** The attached table with the run on first deployment turned off. */
    private static final class NotOnCreate {
        static final SynthesizedStacks.Synthesized INSTANCE = create();

        private static SynthesizedStacks.Synthesized create() {
            ExistingTableStack stack = new ExistingTableStack(new App(), "NoBackfillOnCreate", StackProps.builder().build(),
                    SynthesizedStacks.ATTACHED_TABLE, SynthesizedStacks.ATTACHED_STREAM_ARN, SynthesizedStacks.ATTACHED_TTL,
                    builder -> builder.backfillOnCreate(false));
            return new SynthesizedStacks.Synthesized(stack.expiry(), TemplateJson.synthesize(stack), stack);
        }
    }

    @Test
    void stateMachine_isStandard_withBackfillInlined_andTheFunctionSubstituted_inBothModes() {
        for (SynthesizedStacks.Synthesized synthesized : List.of(SynthesizedStacks.demo(), SynthesizedStacks.windowed())) {
            TemplateJson template = synthesized.template();
            BackfillResources backfill = synthesized.expiry().backfill();
            JsonNode machine = template.propertiesOf(backfill.stateMachine());
            assertThat(machine.path("StateMachineType").asText()).isEqualTo("STANDARD");
            assertThat(machine.path("DefinitionS3Location").isMissingNode()).as("inlined, not an asset").isTrue();
            Map<String, String> substitutions = new LinkedHashMap<>();
            machine.path("DefinitionSubstitutions").fields()
                    .forEachRemaining(e -> substitutions.put(e.getKey(), render(e.getValue())));
            String functionArn = "${" + template.logicalId(backfill.function()) + ".Arn}";
            assertThat(substitutions).isEqualTo(BackfillWorkflow.substitutions("${AWS::Partition}", functionArn));
            assertThat(StateMachineDefinitions.render(render(machine.path("DefinitionString")), substitutions))
                    .isEqualTo(StateMachineDefinitions.backfill("${AWS::Partition}", functionArn));
            assertThat(machine.path("StateMachineName").asText()).isEqualTo(backfill.stateMachineName())
                    .endsWith(BackfillResources.STATE_MACHINE_SUFFIX).matches("[A-Za-z0-9_-]{1,80}")
                    .isNotEqualTo(synthesized.expiry().stateMachineName());
            assertThat(machine.at("/LoggingConfiguration/Level").asText()).isEqualTo("ERROR");
            assertThat(machine.at("/LoggingConfiguration/IncludeExecutionData").asBoolean(true)).isFalse();
        }
    }

    @Test
    void stateMachineRole_invokesOnlyTheBackfillFunction_andStartsOnlyItsOwnSuccessors() {
        SynthesizedStacks.Synthesized demo = SynthesizedStacks.demo();
        BackfillResources backfill = demo.expiry().backfill();
        assertThat(grants(demo.template(), backfill.stateMachine().getRole())).containsExactlyInAnyOrder(
                "lambda:InvokeFunction on ${" + demo.template().logicalId(backfill.function()) + ".Arn}",
                "states:StartExecution on arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:stateMachine:"
                        + backfill.stateMachineName());
    }

    @Test
    void function_java21Arm64_timesOutBeforeItsTasks_andIsConfiguredForTheConstructsTableAndMode() throws Exception {
        SynthesizedStacks.Synthesized windowed = SynthesizedStacks.windowed();
        TemplateJson template = windowed.template();
        PunctualExpiry expiry = windowed.expiry();
        JsonNode function = template.propertiesOf(expiry.backfill().function());
        assertThat(function.path("Handler").asText()).isEqualTo(BackfillResources.HANDLER);
        assertThat(function.path("Runtime").asText()).isEqualTo("java21");
        assertThat(function.path("Architectures").toString()).isEqualTo("[\"arm64\"]");
        assertThat(function.path("MemorySize").asInt()).isEqualTo(BackfillWorkflow.FUNCTION_MEMORY_MB);
        assertThat(function.at("/Code/S3Key").asText()).as("the construct's one functions jar")
                .isEqualTo(template.propertiesOf(expiry.function()).at("/Code/S3Key").asText());
        JsonNode definition = JSON.readTree(render(template.propertiesOf(expiry.backfill().stateMachine()).path("DefinitionString")));
        assertThat(function.path("Timeout").asInt()).isEqualTo((int) BackfillWorkflow.FUNCTION_TIMEOUT.toSeconds())
                .isLessThan(definition.at("/States/ScanSegments/ItemProcessor/States/ScanPage/TimeoutSeconds").asInt());

        Map<String, String> environment = new LinkedHashMap<>();
        function.at("/Environment/Variables").fields().forEachRemaining(e -> environment.put(e.getKey(), render(e.getValue())));
        String tableId = template.logicalId(((DemoTableStack) windowed.stack()).table());
        assertThat(environment).containsExactlyInAnyOrderEntriesOf(Map.of(
                StreamWiring.ENV_STATE_MACHINE_ARN, "${" + template.logicalId(expiry.stateMachine()) + "}",
                StreamWiring.ENV_TTL_ATTRIBUTE, PunctualApp.DEMO_TTL_ATTRIBUTE,
                StreamWiring.ENV_MODE, "windowed",
                StreamWiring.ENV_SCHEDULE_TABLE, "${" + template.logicalId(expiry.scheduleIndex().orElseThrow()) + "}",
                BackfillWorkflow.ENV_PROGRESS_TABLE, "${" + template.logicalId(expiry.backfill().progressTable()) + "}",
                BackfillWorkflow.ENV_TABLE, "${" + tableId + "}",
                "POWERTOOLS_SERVICE_NAME", "punctual",
                "POWERTOOLS_LOG_LEVEL", "INFO",
                "JAVA_TOOL_OPTIONS", PunctualExpiry.JAVA_TOOL_OPTIONS));
    }

    @Test
    void functionRole_perItem_scansTheTable_keepsProgress_andStartsExpireItemExecutions_nothingMore() {
        SynthesizedStacks.Synthesized demo = SynthesizedStacks.demo();
        TemplateJson template = demo.template();
        PunctualExpiry expiry = demo.expiry();
        String table = "${" + template.logicalId(((DemoTableStack) demo.stack()).table()) + ".Arn}";
        String progress = "${" + template.logicalId(expiry.backfill().progressTable()) + ".Arn}";
        String logs = "${" + template.logicalId(expiry.backfill().functionLogs()) + ".Arn}";
        assertThat(grants(template, expiry.backfill().functionRole())).containsExactlyInAnyOrder(
                "logs:CreateLogStream on " + logs,
                "logs:PutLogEvents on " + logs,
                "dynamodb:DescribeTable on " + table,
                "dynamodb:DescribeTimeToLive on " + table,
                "dynamodb:Scan on " + table,
                "dynamodb:GetItem on " + progress,
                "dynamodb:PutItem on " + progress,
                "dynamodb:UpdateItem on " + progress,
                "dynamodb:Query on " + progress,
                "states:StartExecution on ${" + template.logicalId(expiry.stateMachine()) + "}",
                "states:DescribeExecution on arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:"
                        + expiry.stateMachineName() + ":*",
                "states:StartExecution on arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:stateMachine:"
                        + expiry.backfill().stateMachineName());
        assertThat(template.propertiesOf(expiry.backfill().functionRole()).path("ManagedPolicyArns").isMissingNode()).isTrue();
    }

    @Test
    void functionRole_windowed_addsTheIndexAndTheDeleteOfItemsWhoseTtlPassed() {
        SynthesizedStacks.Synthesized windowed = SynthesizedStacks.windowed();
        TemplateJson template = windowed.template();
        PunctualExpiry expiry = windowed.expiry();
        String table = "${" + template.logicalId(((DemoTableStack) windowed.stack()).table()) + ".Arn}";
        String index = "${" + template.logicalId(expiry.scheduleIndex().orElseThrow()) + ".Arn}";
        assertThat(grants(template, expiry.backfill().functionRole())).contains(
                "dynamodb:BatchWriteItem on " + index,
                "dynamodb:PutItem on " + index,
                "dynamodb:GetItem on " + index,
                "dynamodb:DeleteItem on " + table,
                "states:StartExecution on ${" + template.logicalId(expiry.stateMachine()) + "}")
                .doesNotContain("dynamodb:DeleteItem on " + index, "dynamodb:Query on " + index);
    }

    @Test
    void progressTable_hasTheContractsKeys_onDemand_encrypted_pointInTimeRecovery_removedWithTheStack() {
        TemplateJson template = SynthesizedStacks.demo().template();
        BackfillResources backfill = SynthesizedStacks.demo().expiry().backfill();
        JsonNode table = template.propertiesOf(backfill.progressTable());
        assertThat(table.path("KeySchema").toString()).isEqualTo("[{\"AttributeName\":\"" + BackfillProgressTable.PARTITION_KEY
                + "\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"" + BackfillProgressTable.SORT_KEY + "\",\"KeyType\":\"RANGE\"}]");
        assertThat(table.path("BillingMode").asText()).isEqualTo("PAY_PER_REQUEST");
        assertThat(table.at("/SSESpecification/SSEEnabled").asBoolean()).isTrue();
        assertThat(table.at("/PointInTimeRecoverySpecification/PointInTimeRecoveryEnabled").asBoolean()).isTrue();
        assertThat(table.path("StreamSpecification").isMissingNode()).isTrue();
        assertThat(template.resources().path(template.logicalId(backfill.progressTable())).path("DeletionPolicy").asText())
                .isEqualTo("Delete");
    }

    @Test
    void firstDeployment_startsOneBackfillOfTheTable_throughTheBackfillFunction_afterTheStreamMappingExists() {
        for (SynthesizedStacks.Synthesized synthesized : List.of(SynthesizedStacks.demo(), SynthesizedStacks.attached())) {
            TemplateJson template = synthesized.template();
            PunctualExpiry expiry = synthesized.expiry();
            Map<String, JsonNode> starts = template.ofType(CUSTOM_RESOURCE);
            assertThat(starts).hasSize(1);
            String id = starts.keySet().iterator().next();
            JsonNode start = starts.get(id);
            assertThat(render(start.path("ServiceToken"))).as("served by the backfill function itself, no provider of its own")
                    .isEqualTo("${" + template.logicalId(expiry.backfill().function()) + ".Arn}");
            assertThat(render(start.path(BackfillWorkflow.ON_CREATE_STATE_MACHINE_ARN)))
                    .isEqualTo("${" + template.logicalId(expiry.backfill().stateMachine()) + "}");
            String tableName = synthesized == SynthesizedStacks.demo()
                    ? "${" + template.logicalId(((DemoTableStack) synthesized.stack()).table()) + "}"
                    : SynthesizedStacks.ATTACHED_TABLE;
            assertThat(render(start.path(BackfillWorkflow.ON_CREATE_TABLE))).isEqualTo(tableName);

            List<String> dependsOn = new ArrayList<>();
            template.resources().path(id).path("DependsOn").forEach(node -> dependsOn.add(node.asText()));
            assertThat(dependsOn).as("after the stream mapping: every item is in the Scan or in the stream")
                    .containsAll(template.ofType("AWS::Lambda::EventSourceMapping").keySet());
            assertThat(template.ofType("AWS::Lambda::Function")).as("the stream handler and the backfill function only")
                    .hasSize(2);
        }
    }

    @Test
    void backfillOnCreateFalse_deploysTheWorkflow_butStartsNothing() {
        TemplateJson template = NotOnCreate.INSTANCE.template();
        assertThat(template.ofType(CUSTOM_RESOURCE)).isEmpty();
        assertThat(grants(template, NotOnCreate.INSTANCE.expiry().backfill().functionRole()))
                .as("no start of its own machine").doesNotContain("states:StartExecution on arn:${AWS::Partition}:states:"
                        + "${AWS::Region}:${AWS::AccountId}:stateMachine:" + NotOnCreate.INSTANCE.expiry().backfill().stateMachineName());
        assertThat(template.ofType("AWS::Lambda::Function")).as("the stream handler and the backfill function only").hasSize(2);
        assertThat(template.ofType("AWS::StepFunctions::StateMachine")).hasSize(2);
        assertThat(NotOnCreate.INSTANCE.expiry().backfill().startOnCreate()).isEmpty();
        assertThat(PunctualExpiryProps.builder().table(NotOnCreate.INSTANCE.expiry().backfill().progressTable())
                .ttlAttribute("ttl").build().backfillOnCreate()).as("on by default").isTrue();
    }

    @Test
    void outputs_nameTheBackfillMachineAndItsProgressTable() {
        SynthesizedStacks.Synthesized attached = SynthesizedStacks.attached();
        JsonNode outputs = attached.template().outputs();
        assertThat(render(outputs.at("/BackfillStateMachineArn/Value")))
                .isEqualTo("${" + attached.template().logicalId(attached.expiry().backfill().stateMachine()) + "}");
        assertThat(outputs.at("/BackfillStateMachineArn/Description").asText())
                .contains("aws stepfunctions start-execution").contains("{\"table\":\"<table>\"}");
        assertThat(render(outputs.at("/BackfillProgressTableName/Value")))
                .isEqualTo("${" + attached.template().logicalId(attached.expiry().backfill().progressTable()) + "}");
    }

    private static List<String> grants(TemplateJson template, IConstruct role) {
        return template.statementsOfRole(template.logicalId(role)).stream()
                .flatMap(statement -> actions(statement).stream()
                        .flatMap(action -> renderedResources(statement).stream().map(r -> action + " on " + r)))
                .filter(grant -> !grant.startsWith("logs:") || !grant.endsWith(" on *"))
                .filter(grant -> !grant.startsWith("xray:"))
                .collect(Collectors.toList());
    }
}
