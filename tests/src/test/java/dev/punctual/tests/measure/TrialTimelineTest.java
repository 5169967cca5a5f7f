package dev.punctual.tests.measure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.measure.AccuracyReport;
import dev.punctual.local.measure.ExpiryTimeline;
import dev.punctual.local.measure.ExpiryTimeline.Phase;
import dev.punctual.local.measure.ExpiryTrial;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryMode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The trial's timeline of each TTL second on the real runtime, in both modes: one entry per second
 * that items fell due in, every item counted in its second and deleted, the phases each mode reports
 * in the order the work passes them, and the last delete of each second being its items' largest lag.
 */
class TrialTimelineTest {

    private static final int ITEMS = 30;
    private static final int SPREAD_SECONDS = 3;

    @ParameterizedTest
    @EnumSource(ExpiryMode.class)
    void trial_timesEverySecondsWork_inOrder_withItsItemsCounted(ExpiryMode mode) throws Exception {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode))) {
            String table = "timeline-" + mode.label() + "-" + System.currentTimeMillis();
            AccuracyReport report = new ExpiryTrial(runtime).run(new ExpiryTrial.Settings(table, ITEMS,
                    Duration.ofSeconds(SPREAD_SECONDS), Duration.ofSeconds(12), Duration.ofSeconds(10), 2), ExpiryTrial.Progress.NONE);
            assertThat(report.perfect()).as(report.toText()).isTrue();

            List<ExpiryTimeline.Second> seconds = report.timeline().seconds();
            assertThat(seconds).hasSize(SPREAD_SECONDS);
            assertThat(seconds).extracting(ExpiryTimeline.Second::items).containsOnly(ITEMS / SPREAD_SECONDS);
            for (ExpiryTimeline.Second second : seconds) {
                assertThat(second.deleted()).isEqualTo(second.items());
                double firstDelete = second.millis(Phase.FIRST_DELETE).orElseThrow();
                double lastDelete = second.millis(Phase.LAST_DELETE).orElseThrow();
                double wake = second.millis(Phase.WAKE).orElseThrow();
                assertThat(wake).as("never woken early").isGreaterThanOrEqualTo(0);
                assertThat(firstDelete).isBetween(wake, lastDelete);
                if (mode == ExpiryMode.WINDOWED) {
                    assertThat(second.itemsRead()).as("the bucket read every item of its second").isEqualTo(second.items());
                    double invoked = second.millis(Phase.INVOKED).orElseThrow();
                    double seal = second.millis(Phase.SEAL).orElseThrow();
                    double read = second.millis(Phase.READ).orElseThrow();
                    assertThat(invoked).as("invoked before its second").isNegative();
                    assertThat(seal).isBetween(invoked, read);
                    assertThat(read).as("read ahead of the second").isLessThanOrEqualTo(wake);
                    assertThat(second.millis(Phase.LAST_WAKE)).isEmpty();
                } else {
                    assertThat(second.millis(Phase.LAST_WAKE).orElseThrow()).isBetween(wake, lastDelete);
                    assertThat(second.millis(Phase.SEAL)).isEmpty();
                }
            }
            assertThat(report.timeline().resources().window()).as("measured from a second before the first TTL")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(SPREAD_SECONDS));
            assertThat(report.timeline().resources().databaseThreadCpuMillis()).as("the deletes ran on DynamoDB Local's thread")
                    .isPositive();
            double largestLastDelete = seconds.stream().mapToDouble(s -> s.millis(Phase.LAST_DELETE).orElseThrow()).max()
                    .orElseThrow();
            assertThat(largestLastDelete).as("the largest last delete is the largest lag")
                    .isBetween(report.maxLag() - 1.0, report.maxLag() + 1.0);
        }
    }
}
