package dev.punctual.tests.measure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.measure.AccuracyReport;
import dev.punctual.local.measure.ExpiryTrial;
import dev.punctual.local.measure.PublishedMetrics;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.testing.Await;
import dev.punctual.tests.support.RuntimeProgress;
import java.time.Duration;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The metrics the stream handler publishes (what the construct's dashboard and alarms read in AWS)
 * agree with what a trial measures on the real runtime, in both modes: one {@code ExpiryLag} point and
 * one {@code ExpiredByPunctual} per item Punctual deleted, no backstop win, and a lag that bounds the
 * measured one from above (it is taken when the REMOVE record is handled, after the stream's delay).
 * Each mode runs on a runtime of its own, so the two run side by side.
 *
 * <p>On the wall clock, not a manual timer: {@code ExpiryLag} is the handler's clock when it reads
 * Punctual's REMOVE minus the TTL, so it measures the stream's and the handler's delay in real time. On
 * skipped time the runtime stands still at each TTL until its REMOVE is handled, so every point is 0 (as
 * {@code SkippedTimeTest} asserts of the lag in {@code ItemExpired} events, taken the same way) and so is
 * the measured lag, and the two lag checks here would hold for a handler that published nothing but
 * zeros. The counts alone would keep their meaning there, but they come from the same trial, which would
 * still run here for the lag.
 */
@Execution(ExecutionMode.CONCURRENT)
class PublishedMetricsTest {

    private static final int ITEMS = 40;

    @ParameterizedTest
    @EnumSource(ExpiryMode.class)
    void handlersExpiryLag_boundsTheMeasuredLagFromAbove_andCountsEveryExpiry(ExpiryMode mode) throws Exception {
        try (LocalRuntime runtime = LocalRuntime.start(LocalRuntime.Options.onFreePorts().withMode(mode))) {
            String table = "metrics-" + mode.label() + "-" + System.currentTimeMillis();
            // A lead long enough for a cold handler to schedule every record before the first TTL: the
            // trial's "done" check counts records handed to the handler, not executions started.
            AccuracyReport measured = new ExpiryTrial(runtime).run(
                    new ExpiryTrial.Settings(table, ITEMS, Duration.ofSeconds(4), Duration.ofSeconds(12), Duration.ofSeconds(10), 2),
                    ExpiryTrial.Progress.NONE);
            assertThat(measured.perfect()).as(measured.toText()).isTrue();

            Await.untilProgressing("a lag point for every expiry", RuntimeProgress.STALL, RuntimeProgress.of(runtime),
                    () -> PublishedMetrics.of(runtime.observations().metrics(), table).lagMillis().length == ITEMS);
            PublishedMetrics published = PublishedMetrics.of(runtime.observations().metrics(), table);

            assertThat(published.expiredByPunctual()).isEqualTo(ITEMS);
            assertThat(published.expiredByNativeTtl()).isZero();
            assertThat(published.recordsScheduled()).isEqualTo(ITEMS);
            assertThat(published.lagPercentile(50)).as("published p50 bounds the measured p50")
                    .isGreaterThanOrEqualTo(measured.lagPercentile(50));
            assertThat(published.lagMillis()[ITEMS - 1]).as("published max within the stream's delay of the measured max")
                    .isBetween(measured.maxLag(), measured.maxLag() + 10_000);
        }
    }
}
