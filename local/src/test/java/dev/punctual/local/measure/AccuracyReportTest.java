package dev.punctual.local.measure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.stepfunctions.quotas.ThrottleCounts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AccuracyReportTest {

    private static final Instant T = Instant.parse("2026-11-21T12:00:00.250Z");

    @Test
    void of_whenDeletedAfterTtl_countsDeletedAndLag() {
        AccuracyReport report = AccuracyReport.of(List.of(
                new ExpiryObservation(T, T.plusMillis(750), false, false),
                new ExpiryObservation(T, T.plusMillis(760), false, false)), 100, 10);

        assertThat(report.deleted()).isEqualTo(2);
        assertThat(report.early()).isZero();
        assertThat(report.missed()).isZero();
        assertThat(report.lagPercentile(50)).isEqualTo(750);
        assertThat(report.maxLag()).isEqualTo(760);
        assertThat(report.perfect()).isTrue();
    }

    @Test
    void of_whenDeletedBeforeTtl_countsEarly() {
        AccuracyReport report = AccuracyReport.of(List.of(new ExpiryObservation(T, T.minusMillis(1), false, false)), 1, 1);

        assertThat(report.early()).isEqualTo(1);
        assertThat(report.perfect()).isFalse();
    }

    @Test
    void of_whenTableReadSawItGoneBeforeTtl_countsEarly() {
        AccuracyReport report = AccuracyReport.of(List.of(new ExpiryObservation(T, null, false, true)), 1, 1);

        assertThat(report.early()).isEqualTo(1);
        assertThat(report.missed()).isZero();
    }

    @Test
    void of_whenItemIsStillThereAfterEveryTtl_countsMissed() {
        AccuracyReport report = AccuracyReport.of(List.of(
                new ExpiryObservation(T, null, true, false),
                new ExpiryObservation(T, T.plusSeconds(1), true, false)), 1, 1);

        assertThat(report.missed()).isEqualTo(2);
        assertThat(report.deleted()).isEqualTo(1);
        assertThat(report.perfect()).isFalse();
    }

    @Test
    void of_whenGoneWithoutPunctualsDelete_countsBackstopNotMissed() {
        AccuracyReport report = AccuracyReport.of(List.of(new ExpiryObservation(T, null, false, false)), 1, 1);

        assertThat(report.backstop()).isEqualTo(1);
        assertThat(report.missed()).isZero();
        assertThat(report.perfect()).isFalse();
    }

    @Test
    void lagPercentile_usesNearestRank() {
        List<ExpiryObservation> observations = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            observations.add(new ExpiryObservation(T, T.plusMillis(i), false, false));
        }
        AccuracyReport report = AccuracyReport.of(observations, 1, 1);

        assertThat(report.lagPercentile(50)).isEqualTo(50);
        assertThat(report.lagPercentile(95)).isEqualTo(95);
        assertThat(report.lagPercentile(99)).isEqualTo(99);
        assertThat(report.maxLag()).isEqualTo(100);
    }

    @Test
    void toJson_hasTheBenchFields() throws Exception {
        AccuracyReport report = AccuracyReport.of(List.of(new ExpiryObservation(T, T.plusMillis(5), false, false)), 2500.5, 321,
                new ThrottleCounts(7, 2, 40));

        var json = new ObjectMapper().readTree(report.toJson());
        assertThat(json.path("items").asInt()).isEqualTo(1);
        assertThat(json.path("deleted").asInt()).isEqualTo(1);
        assertThat(json.path("early").asInt()).isZero();
        assertThat(json.path("missed").asInt()).isZero();
        assertThat(json.path("backstop").asInt()).isZero();
        assertThat(json.at("/lagMs/p50").asLong()).isEqualTo(5);
        assertThat(json.at("/lagMs/max").asLong()).isEqualTo(5);
        assertThat(json.path("schedulingPerSecond").asDouble()).isEqualTo(2500.5);
        assertThat(json.path("heapMb").asLong()).isEqualTo(321);
        assertThat(json.at("/throttled/startExecution").asLong()).isEqualTo(7);
        assertThat(json.at("/throttled/stopExecution").asLong()).isEqualTo(2);
        assertThat(json.at("/throttled/stateTransitions").asLong()).isEqualTo(40);
        assertThat(report.toText()).contains("throttled          7 StartExecution, 2 StopExecution, 40 state transitions");
    }

    @Test
    void of_whenEmpty_reportsZeros() {
        AccuracyReport report = AccuracyReport.of(List.of(), 0, 0);

        assertThat(report.lagPercentile(99)).isZero();
        assertThat(report.toText()).contains("early              0");
    }
}
