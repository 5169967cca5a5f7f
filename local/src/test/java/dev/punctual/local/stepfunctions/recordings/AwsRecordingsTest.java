package dev.punctual.local.stepfunctions.recordings;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Replays executions AWS itself recorded (LocalStack's parity snapshots, {@code src/test/resources/aws-recordings},
 * see its {@code NOTICE}) on our engine, through the real {@code SfnClient}, and compares what AWS answered
 * with what we answer. Every case matches, or its manifest entry says why it does not (and the replay checks
 * that it still does not, so a fix shows up as a change to record). Cases under the directory named by the
 * system property {@code aws.recordings.extra}, in the same layout, are replayed too.
 *
 * <p>Ends by printing {@code AWS recordings: matched M of N}.
 */
class AwsRecordingsTest {

    static final String EXTRA = "aws.recordings.extra";

    record Outcome(RecordedCase recordedCase, List<String> differences) {
        boolean matched() {
            return differences.isEmpty();
        }
    }

    @Test
    void replay_whenRecordedByAws_answersAsAwsDidOrAsDocumented() throws Exception {
        List<RecordingLibrary> libraries = new ArrayList<>();
        libraries.add(new RecordingLibrary(bundled()));
        String extra = System.getProperty(EXTRA);
        if (extra != null && !extra.isBlank()) {
            Path root = Path.of(extra);
            assertThat(root.resolve("manifest.json")).as("-D%s must name a directory holding manifest.json", EXTRA)
                    .exists();
            libraries.add(new RecordingLibrary(root));
        }
        List<Outcome> outcomes = new ArrayList<>();
        try (ReplayRig rig = new ReplayRig()) {
            for (RecordingLibrary library : libraries) {
                for (RecordedCase recordedCase : library.cases()) {
                    outcomes.add(new Outcome(recordedCase, replay(rig, recordedCase)));
                }
            }
        }
        List<String> unexpected = new ArrayList<>();
        Map<String, int[]> perFile = new TreeMap<>();
        for (Outcome outcome : outcomes) {
            RecordedCase c = outcome.recordedCase();
            int[] counts = perFile.computeIfAbsent(c.snapshot(), s -> new int[2]);
            counts[1]++;
            if (outcome.matched()) {
                counts[0]++;
            }
            if (c.difference() == null && !outcome.matched()) {
                unexpected.add(c.id() + " differs from AWS:\n    " + String.join("\n    ", outcome.differences()));
            } else if (c.difference() != null && outcome.matched()) {
                unexpected.add(c.id() + " now matches AWS: remove its 'difference' (" + c.difference() + ")");
            } else if (c.difference() != null) {
                System.out.println("known difference " + c.id() + ": " + c.difference() + "\n    "
                        + String.join("\n    ", outcome.differences()));
            }
        }
        writeReport(outcomes);
        perFile.forEach((file, counts) -> System.out.println("| " + file + " | " + counts[0] + " of " + counts[1] + " |"));
        long matched = outcomes.stream().filter(Outcome::matched).count();
        System.out.println("AWS recordings: matched " + matched + " of " + outcomes.size());
        assertThat(unexpected).as("cases whose outcome is not what the manifest records").isEmpty();
    }

    /** Every case's differences, one case a line, in {@code target/aws-recordings.txt}: what docs/engine.md quotes. */
    private static void writeReport(List<Outcome> outcomes) throws java.io.IOException {
        StringBuilder report = new StringBuilder();
        for (Outcome outcome : outcomes) {
            report.append(outcome.matched() ? "MATCH " : "DIFF  ").append(outcome.recordedCase().id());
            outcome.differences().forEach(d -> report.append("\n    ").append(d));
            report.append('\n');
        }
        Files.writeString(Path.of("target", "aws-recordings.txt"), report);
    }

    private static List<String> replay(ReplayRig rig, RecordedCase recordedCase) {
        try {
            return new CaseReplay(rig, recordedCase).replay();
        } catch (RuntimeException e) {
            return List.of("the replay failed: " + e);
        }
    }

    private static Path bundled() throws URISyntaxException {
        Path root = Path.of(AwsRecordingsTest.class.getResource("/aws-recordings/manifest.json").toURI()).getParent();
        assertThat(Files.isDirectory(root.resolve("snapshots"))).isTrue();
        return root;
    }
}
