package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release artifact as the build wrote it ({@code punctual-cloudformation-<version>.zip}): laid out for
 * {@code aws cloudformation package}, carrying the bundle punctual-cdk carries, and clean under cfn-lint.
 * cfn-lint must be installed: this check fails rather than skips without it.
 */
class PackagedTemplateIT {

    /** What cfn-lint may still say, as warnings: both are by design. */
    static final Map<String, String> EXPECTED_WARNINGS = Map.of(
            "W3002", "a Code path only `aws cloudformation package` can deploy: the point of the artifact",
            "W3005", "CDK's explicit DependsOn on a role its function or state machine also references");

    private static final Duration LINT_TIMEOUT = Duration.ofMinutes(5);

    @TempDir
    static Path unzipped;

    private static Map<String, byte[]> entries;
    private static JsonNode template;

    @BeforeAll
    static void unzip() throws IOException {
        Path zip = Path.of(System.getProperty("punctual.cloudformation.zip"));
        assertThat(zip).as("the build's release artifact").isRegularFile();
        entries = new TreeMap<>();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                byte[] bytes = in.readAllBytes();
                entries.put(entry.getName(), bytes);
                Files.write(unzipped.resolve(entry.getName()), bytes);
            }
        }
        template = TemplateJson.JSON.readTree(entries.get(PunctualTemplateStack.TEMPLATE_FILE));
    }

    @Test
    void zip_holdsTheTemplate_andTheBundleItNamesBesideIt() throws IOException {
        Path bundle = FunctionBundle.locate();
        String codePath = PunctualTemplateStack.codePath(bundle);

        assertThat(entries.keySet()).containsExactlyInAnyOrder(PunctualTemplateStack.TEMPLATE_FILE, codePath);
        assertThat(entries.get(codePath)).isEqualTo(Files.readAllBytes(bundle));
        Set<String> named = new TreeSet<>();
        TemplateJson.of(template).ofType("AWS::Lambda::Function").values()
                .forEach(function -> named.add(function.path("Code").asText()));
        assertThat(named).containsExactly(codePath);
    }

    @Test
    void cfnLint_findsNoErrors_andOnlyTheWarningsTheTemplateIsBuiltWith() throws Exception {
        List<JsonNode> findings = cfnLint(unzipped.resolve(PunctualTemplateStack.TEMPLATE_FILE));

        assertThat(findings).as("cfn-lint errors").noneMatch(finding -> "Error".equals(finding.path("Level").asText()));
        assertThat(findings.stream().map(finding -> finding.at("/Rule/Id").asText()))
                .as("cfn-lint findings").isSubsetOf(EXPECTED_WARNINGS.keySet());
    }

    /**
     * The template tells cfn-lint to skip its state machine definition check, which reads
     * {@code arn:${Partition}:states:::...} before {@code DefinitionSubstitutions} apply. Here the check runs on
     * a copy with the partition substituted, as CloudFormation would in the {@code aws} partition.
     */
    @Test
    void cfnLint_findsNoErrorInTheStateMachineDefinitions_withThePartitionSubstituted() throws Exception {
        ObjectNode substituted = template.deepCopy();
        int machines = 0;
        for (JsonNode resource : substituted.path("Resources")) {
            if ("AWS::StepFunctions::StateMachine".equals(resource.path("Type").asText())) {
                ObjectNode properties = (ObjectNode) resource.get("Properties");
                assertThat(properties.at("/DefinitionSubstitutions/Partition/Ref").asText()).isEqualTo("AWS::Partition");
                properties.put("DefinitionString", properties.get("DefinitionString").asText()
                        .replace("${Partition}", "aws"));
                ((ObjectNode) resource).remove("Metadata");
                machines++;
            }
        }
        Path copy = unzipped.resolve("definitions.template.json");
        TemplateJson.JSON.writeValue(copy.toFile(), substituted);

        assertThat(machines).as("each mode's expiry machine and its backfill machine, and windowed mode's runner").isEqualTo(5);
        assertThat(cfnLint(copy)).as("cfn-lint findings").allMatch(
                finding -> EXPECTED_WARNINGS.containsKey(finding.at("/Rule/Id").asText()));
    }

    /** cfn-lint's findings as JSON; its exit code is a bit set of the levels found, so it is not checked here. */
    private static List<JsonNode> cfnLint(Path file) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder("cfn-lint", "--format", "json", file.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new AssertionError("cfn-lint is not on the PATH. The packaged template must pass cfn-lint"
                    + " (1.51 or later: `pip install cfn-lint`), and this check fails rather than skips without it.", e);
        }
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!process.waitFor(LINT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("cfn-lint did not finish within " + LINT_TIMEOUT);
        }
        List<JsonNode> findings = new ArrayList<>();
        TemplateJson.JSON.readTree(output.isBlank() ? "[]" : output).forEach(findings::add);
        findings.forEach(finding -> System.out.println("cfn-lint " + file.getFileName() + ": "
                + finding.at("/Rule/Id").asText() + " " + finding.path("Message").asText()));
        return findings;
    }
}
