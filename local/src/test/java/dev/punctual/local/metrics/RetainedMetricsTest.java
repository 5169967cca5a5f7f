package dev.punctual.local.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.MetricSink;
import dev.punctual.expiry.RecordedMetrics;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Published metrics: a few points one by one, minutes as aggregates, totals forever; each view bounded. */
class RetainedMetricsTest {

    private static final Map<String, String> ORDERS = Map.of("TableName", "orders");
    private final ManualClock clock = new ManualClock(Instant.parse("2030-01-01T00:00:10Z"));

    private static void lag(RetainedMetrics metrics, double millis) {
        metrics.add("ExpiryLag", millis, MetricSink.Unit.MILLISECONDS, ORDERS);
        metrics.flush();
    }

    @Test
    void points_beyondTheCount_keepTheNewest_whileTotalsAndMinutesCountEvery() {
        RetainedMetrics metrics = new RetainedMetrics(clock, Retention.of(2, Duration.ofHours(1)),
                Retention.of(10, Duration.ofHours(1)));
        lag(metrics, 100);
        lag(metrics, 300);
        lag(metrics, 200);

        assertThat(metrics.points()).extracting(RecordedMetrics.Point::value).containsExactly(300.0, 200.0);
        assertThat(metrics.pointsForgotten()).isEqualTo(1);
        MetricSeries series = new MetricSeries("ExpiryLag", ORDERS);
        assertThat(metrics.totals().get(series)).isEqualTo(new MetricAggregate(3, 600, 100, 300));
        assertThat(metrics.minutes()).singleElement().satisfies(minute -> {
            assertThat(minute.start()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
            assertThat(minute.series().get(series)).isEqualTo(new MetricAggregate(3, 600, 100, 300));
        });
    }

    @Test
    void points_olderThanTheAge_areForgotten_andMinutesBeyondTheirCountToo() {
        RetainedMetrics metrics = new RetainedMetrics(clock, Retention.of(100, Duration.ofMinutes(5)),
                Retention.of(2, Duration.ofHours(1)));
        lag(metrics, 100);
        clock.advance(Duration.ofMinutes(1));
        lag(metrics, 200);
        clock.advance(Duration.ofMinutes(1));
        lag(metrics, 300);

        clock.advance(Duration.ofMinutes(4).plusMillis(1));

        assertThat(metrics.points()).extracting(RecordedMetrics.Point::value).containsExactly(300.0);
        assertThat(metrics.minutes()).extracting(m -> m.series().get(new MetricSeries("ExpiryLag", ORDERS)).sum())
                .containsExactly(200.0, 300.0);
        assertThat(metrics.totals().get(new MetricSeries("ExpiryLag", ORDERS)).count()).isEqualTo(3);
    }

    @Test
    void minutes_olderThanTheirAge_areForgotten() {
        RetainedMetrics metrics = new RetainedMetrics(clock, Retention.of(100, Duration.ofHours(1)),
                Retention.of(100, Duration.ofMinutes(10)));
        lag(metrics, 100);
        clock.advance(Duration.ofMinutes(10));
        lag(metrics, 200);

        clock.advance(Duration.ofMinutes(1));

        assertThat(metrics.minutes()).extracting(m -> m.series().get(new MetricSeries("ExpiryLag", ORDERS)).sum())
                .containsExactly(200.0);
    }
}
