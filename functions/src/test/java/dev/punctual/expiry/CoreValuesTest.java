package dev.punctual.expiry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.peritem.ItemScheduler;
import dev.punctual.windowed.BucketScheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The core's small value types: what they render, and what they report when a part is missing. */
class CoreValuesTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void outcome_effect_saysInEveryModesWordsWhatBecameOfTheItem() {
        Map<Outcome, Outcome.Effect> effects = new LinkedHashMap<>();
        for (ItemScheduler.Outcome outcome : ItemScheduler.Outcome.values()) {
            effects.put(outcome, outcome.effect());
        }
        for (BucketScheduler.Outcome outcome : BucketScheduler.Outcome.values()) {
            effects.put(outcome, outcome.effect());
        }
        effects.put(Unscheduled.IGNORED, Unscheduled.IGNORED.effect());

        assertThat(effects).containsExactly(
                Map.entry(ItemScheduler.Outcome.STARTED, Outcome.Effect.PENDING),
                Map.entry(ItemScheduler.Outcome.RESTARTED, Outcome.Effect.PENDING),
                Map.entry(ItemScheduler.Outcome.ALREADY_PENDING, Outcome.Effect.PENDING),
                Map.entry(ItemScheduler.Outcome.STOPPED, Outcome.Effect.NONE),
                Map.entry(ItemScheduler.Outcome.IGNORED, Outcome.Effect.NONE),
                Map.entry(BucketScheduler.Outcome.INDEXED, Outcome.Effect.PENDING),
                Map.entry(BucketScheduler.Outcome.DELETED, Outcome.Effect.DELETED),
                Map.entry(BucketScheduler.Outcome.SUPERSEDED, Outcome.Effect.NONE),
                Map.entry(Unscheduled.IGNORED, Outcome.Effect.NONE));
    }

    @Test
    void jsonText_escapesEveryControlCharacter() {
        StringBuilder json = new StringBuilder();
        JsonText.appendString(json, "a\"\\\n\r\t\b\f\u0001\u001fz");

        assertThat(json).hasToString("\"a\\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001fz\"");
    }

    @Test
    void decision_toString_showsVerdictReasonAndTtls_neverTheKey() {
        ExpiryRules rules = new ExpiryRules("ttl");

        assertThat(rules.decide(Changes.modify(Changes.n("1767225700"), Changes.n("1767225800")), NOW))
                .hasToString("SCHEDULE(TTL_CHANGED, new TTL 1767225800, stale TTL 1767225700)");
        assertThat(rules.decide(Changes.insert(null), NOW)).hasToString("IGNORE(NO_TTL)");
        assertThat(rules.decide(Changes.remove(Changes.n("1767229200"), StreamChange.Writer.UNKNOWN, NOW), NOW))
                .hasToString("IGNORE(REMOVED, stale TTL 1767229200)");
    }

    @Test
    void plan_asFound_isTheDecisionWithNothingOfAMode() {
        Decision decision = new ExpiryRules("ttl").decide(Changes.insert(Changes.n("1767225700")), NOW);

        Plan plan = Plan.asFound(decision);

        assertThat(plan.decision()).isSameAs(decision);
        assertThat(plan.execution()).isEmpty();
        assertThat(plan.stops()).isEmpty();
        assertThatThrownBy(() -> Plan.asFound(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void expiry_lagMillis_isFromTheTtlRoundedUpToTheMillisecond_andEmptyWhenTheTtlIsNoNumber() {
        Expiry expiry = new Expiry("orders", Changes.KEY, "1767225599.9995", Expiry.By.PUNCTUAL, NOW.plusMillis(250), "id");

        assertThat(expiry.lagMillis()).hasValue(250);
        assertThat(new Expiry("orders", Changes.KEY, null, Expiry.By.NATIVE_TTL, NOW, "id").lagMillis()).isEmpty();
        assertThat(new Expiry("orders", Changes.KEY, "soon", Expiry.By.NATIVE_TTL, NOW, "id").lagMillis()).isEmpty();
    }

    @Test
    void attributeText_keepsOnlyTheTypeOfValuesExpiryNeverReads_butNeedsTheTextOfScalars() {
        assertThat(AttributeText.ofType(AttributeType.SS)).isEqualTo(new AttributeText(AttributeType.SS, null));
        assertThatThrownBy(() -> new AttributeText(AttributeType.N, null)).hasMessage("a N value needs its text");
    }

    @Test
    void recordedMetrics_keepOnlyFlushedPoints_inOrder() {
        RecordedMetrics metrics = new RecordedMetrics();
        metrics.add("a", 1, MetricSink.Unit.COUNT, Map.of());
        metrics.add("b", 2, MetricSink.Unit.MILLISECONDS, Map.of("table", "t"));
        assertThat(metrics.points()).isEmpty();

        metrics.flush();

        assertThat(metrics.points()).containsExactly(new RecordedMetrics.Point("a", 1, MetricSink.Unit.COUNT, Map.of()),
                new RecordedMetrics.Point("b", 2, MetricSink.Unit.MILLISECONDS, Map.of("table", "t")));
    }

    @Test
    void sleepUntil_whenInterrupted_failsAndKeepsTheInterrupt() {
        Sleeper interrupted = duration -> {
            throw new InterruptedException();
        };

        try {
            assertThatThrownBy(() -> interrupted.sleepUntil(Clock.fixed(NOW, ZoneOffset.UTC), NOW.plus(Duration.ofSeconds(1))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("interrupted while waiting for");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
