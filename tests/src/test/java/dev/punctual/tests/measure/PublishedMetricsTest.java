package dev.punctual.tests.measure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.measure.AccuracyReport;
import dev.punctual.local.measure.ExpiryTrial;
import dev.punctual.local.measure.PublishedMetrics;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.testing.Await;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The metrics the stream handler publishes (what the construct's dashboard and alarms read in AWS)
 * agree with what a trial measures on the real runtime, in both modes: one {@code ExpiryLag} point and
 * one {@code ExpiredByPunctual} per item Punctual deleted, no backstop win, and a lag that bounds the
 * measured one from above (it is taken when the REMOVE record is handled, after the stream's delay).
 */
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

            Await.until("a lag point for every expiry", Duration.ofSeconds(10),
                    () -> PublishedMetrics.of(runtime.metrics(), table).lagMillis().length == ITEMS);
            PublishedMetrics published = PublishedMetrics.of(runtime.metrics(), table);

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
