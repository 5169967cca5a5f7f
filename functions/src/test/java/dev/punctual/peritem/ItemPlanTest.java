package dev.punctual.peritem;

import static dev.punctual.expiry.Changes.insert;
import static dev.punctual.expiry.Changes.modify;
import static dev.punctual.expiry.Changes.modifyWithoutOldImage;
import static dev.punctual.expiry.Changes.n;
import static dev.punctual.expiry.Changes.remove;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.Changes;
import dev.punctual.expiry.Decision;
import dev.punctual.expiry.ExpiryRules;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.StreamChange.Writer;
import dev.punctual.expiry.TtlValue;
import dev.punctual.names.ItemExecutionName;
import dev.punctual.statemachine.StepFunctionsLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What per-item mode makes of the rules' decisions, with cancellation on: the execution's name and
 * input, its horizon hops, the stale executions to stop (which turn an ignored change into a cancel),
 * and its payload limit. {@code NOW} is 2026-01-01T00:00:00Z = 1767225600.
 */
class ItemPlanTest {

    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    static final long NOW_S = NOW.getEpochSecond();
    static final long DAY = 86_400;

    private final ExpiryRules rules = new ExpiryRules("ttl");

    private ItemPlan plan(StreamChange change, Instant now) {
        return ItemPlan.of(rules.decide(change, now), now, true);
    }

    static Stream<Arguments> table() {
        return Stream.of(
                arguments("future TTL", insert(n("1767225700")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("no TTL attribute", insert(null), "IGNORE NO_TTL"),
                arguments("milliseconds", insert(n("1767225600000")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS"),
                arguments("just below the milliseconds threshold (year 5138)", insert(n("99999999999")),
                        "SCHEDULE TTL_SET expireAt=5138-11-16T09:46:39Z hops=3158 stops=[]"),

                // --- horizons (360 days)
                arguments("exactly one horizon: no hop", insert(n(Long.toString(NOW_S + 360 * DAY))),
                        "SCHEDULE TTL_SET expireAt=2026-12-27T00:00:00Z hops=0 stops=[]"),
                arguments("a second past one horizon: one hop", insert(n(Long.toString(NOW_S + 360 * DAY + 1))),
                        "SCHEDULE TTL_SET expireAt=2026-12-27T00:00:01Z hops=1 stops=[]"),
                arguments("half a second past one horizon rounds up: one hop", insert(n((NOW_S + 360 * DAY) + ".5")),
                        "SCHEDULE TTL_SET expireAt=2026-12-27T00:00:01Z hops=1 stops=[]"),
                arguments("exactly two horizons: two hops, no final wait", insert(n(Long.toString(NOW_S + 720 * DAY))),
                        "SCHEDULE TTL_SET expireAt=2027-12-22T00:00:00Z hops=2 stops=[]"),
                arguments("800 days: two hops", insert(n(Long.toString(NOW_S + 800 * DAY))),
                        "SCHEDULE TTL_SET expireAt=2028-03-11T00:00:00Z hops=2 stops=[]"),

                // --- MODIFY
                arguments("unchanged TTL", modify(n("1767225700"), n("1767225700")), "IGNORE TTL_UNCHANGED"),
                arguments("TTL added", modify(null, n("1767225700")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("TTL changed: stop the old", modify(n("1767225700"), n("1767225800")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:03:20Z hops=0 stops=[20260101T000140Z-orders-*]"),
                arguments("same value, other text: reschedule", modify(n("1767225700"), n("1767225700.0")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z hops=0 stops=[20260101T000140Z-orders-*]"),
                arguments("String TTL becomes a Number: nothing to stop", modify(AttributeText.s("x"), n("1767225700")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("milliseconds become seconds: nothing to stop", modify(n("1767225700000"), n("1767225700")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("TTL removed", modify(n("1767225700"), null), "CANCEL TTL_REMOVED stops=[20260101T000140Z-orders-*]"),
                arguments("TTL becomes a String", modify(n("1767225700"), AttributeText.s("1767225700")),
                        "CANCEL TTL_NO_LONGER_VALID stops=[20260101T000140Z-orders-*]"),
                arguments("TTL becomes milliseconds", modify(n("1767225700"), n("1767225700000")),
                        "CANCEL TTL_NO_LONGER_VALID stops=[20260101T000140Z-orders-*]"),
                arguments("still no TTL", modify(null, null), "IGNORE NO_TTL"),
                arguments("no old image: schedule, the name dedupes", modifyWithoutOldImage(n("1767225700")),
                        "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("old TTL two horizons out: stop the chain and its live successors",
                        modify(n(Long.toString(NOW_S + 800 * DAY)), n("1767225700")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z hops=0 stops=[20280311T000000Z-orders-*, "
                                + "20280311T000000Z-orders-*-h2, 20280311T000000Z-orders-*-h3, 20280311T000000Z-orders-*-h4]"),

                // --- REMOVE
                arguments("deleted by native TTL", remove(n("1767225500"), Writer.TTL_SERVICE, NOW), "IGNORE REMOVED_BY_TTL_SERVICE"),
                arguments("deleted early by the application", remove(n("1767229200"), Writer.UNKNOWN, NOW),
                        "CANCEL ITEM_DELETED stops=[20260101T010000Z-orders-*]"),
                arguments("deleted with no creation time", remove(n("1767225500"), Writer.UNKNOWN, null),
                        "CANCEL ITEM_DELETED stops=[20251231T235820Z-orders-*]"),
                arguments("our delete: TTL before the record's minute", remove(n("1767225570"), Writer.UNKNOWN, NOW),
                        "IGNORE REMOVED_AT_EXPIRY"),
                arguments("TTL 61 s after the record's minute: an early delete", remove(n("1767225661"), Writer.UNKNOWN, NOW),
                        "CANCEL ITEM_DELETED stops=[20260101T000101Z-orders-*]"),
                arguments("TTL 60.5 s after the minute rounds up to 61: an early delete", remove(n("1767225660.5"), Writer.UNKNOWN, NOW),
                        "CANCEL ITEM_DELETED stops=[20260101T000101Z-orders-*]"),
                arguments("deleted, old TTL a String", remove(AttributeText.s("x"), Writer.UNKNOWN, NOW), "IGNORE REMOVED"),

                // --- Step Functions' payload limit
                arguments("input over 256 KB", Changes.withTable(insert(n("1767225700")), "t".repeat(262_144)), "IGNORE INPUT_TOO_LARGE"),
                arguments("input over 256 KB, old TTL stale: stop it all the same",
                        Changes.withTable(modify(n("1767225700"), n("1767225800")), "t".repeat(262_144)), "CANCEL INPUT_TOO_LARGE stops=[1]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void of_followsTheRulesTable_perItem(String rule, StreamChange change, String expected) {
        ItemPlan plan = plan(change, NOW);

        assertThat(summary(plan)).as(rule).isEqualTo(expected);
        assertThat(plan.decision().reason().warn()).as("warns exactly for bad data")
                .isEqualTo(expected.contains("MILLISECONDS") || expected.contains("INPUT_TOO_LARGE") || expected.contains("NO_LONGER_VALID"));
        assertThat(plan.execution()).isEqualTo(plan.start().map(ExecutionRequest::name));
    }

    @Test
    void of_whenCancellationIsOff_stopsNothing_andTakesTheDecisionAsFound() {
        Decision changed = rules.decide(modify(n("1767225700"), n("1767225800")), NOW);
        Decision removed = rules.decide(modify(n("1767225700"), null), NOW);
        Decision deleted = rules.decide(remove(n("1767229200"), Writer.UNKNOWN, NOW), NOW);

        assertThat(summary(ItemPlan.of(changed, NOW, false))).isEqualTo("SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:03:20Z hops=0 stops=[]");
        assertThat(summary(ItemPlan.of(removed, NOW, false))).isEqualTo("IGNORE NO_TTL");
        assertThat(summary(ItemPlan.of(deleted, NOW, false))).isEqualTo("IGNORE REMOVED");
        assertThat(ItemPlan.of(changed, NOW, false).decision().detail()).isEqualTo("TTL changed; expires at 2026-01-01T00:03:20Z");
        assertThat(ItemPlan.of(removed, NOW, false).decision()).isSameAs(removed);
        assertThat(ItemPlan.of(deleted, NOW, false).decision().detail())
                .isEqualTo("deleted before its TTL; cancellation is off, the pending execution will find the item gone");
    }

    @Test
    void of_buildsTheExactInput() {
        ItemPlan plan = plan(insert(n("1767225600.001")), NOW);

        ExecutionRequest start = plan.start().orElseThrow();
        assertThat(start.name()).isEqualTo("20260101T000001Z-orders-" + start.name().substring(24));
        assertThat(start.input().toJson()).isEqualTo("{\"contract\":1,\"table\":\"orders\",\"key\":{\"id\":{\"S\":\"a\"}},\"ttlAttribute\":\"ttl\","
                + "\"ttl\":\"1767225600.001\",\"expireAt\":\"2026-01-01T00:00:01Z\",\"horizonHops\":0,"
                + "\"chainName\":\"" + start.name() + "\"}");
    }

    @Test
    void of_longChainsStopSuccessorsNamedAfterTheOldChain() {
        String chain = plan(insert(n(Long.toString(NOW_S + 800 * DAY))), NOW).start().orElseThrow().name();

        ItemPlan changed = plan(modify(n(Long.toString(NOW_S + 800 * DAY)), n("1767225700")), NOW.plus(Duration.ofDays(100)));

        // 700 days left: the chain has made at most one hop (its successor -h1 is live), or none
        // yet if its start was late; -h1, -h2, -h3 and the chain itself cover both.
        assertThat(changed.stops()).containsExactly(chain, chain + "-h1", chain + "-h2", chain + "-h3");
    }

    @Test
    void of_executionInputAtStepFunctionsLimit_isScheduled_aByteMoreIsNot() {
        // The table name is the one part of the input that can grow that far; one more character, one more byte.
        int probe = 1_000;
        int probeSize = plan(Changes.withTable(insert(n("1767225700")), "t".repeat(probe)), NOW)
                .start().orElseThrow().input().sizeInBytes();
        int atLimit = probe + StepFunctionsLimits.MAX_PAYLOAD_BYTES - ItemExecutionName.RESTART_SUFFIX_LENGTH - probeSize;

        ItemPlan fits = plan(Changes.withTable(insert(n("1767225700")), "t".repeat(atLimit)), NOW);
        ItemPlan over = plan(Changes.withTable(insert(n("1767225700")), "t".repeat(atLimit + 1)), NOW);

        assertThat(fits.start().orElseThrow().input().sizeInBytes() + ItemExecutionName.RESTART_SUFFIX_LENGTH)
                .isEqualTo(StepFunctionsLimits.MAX_PAYLOAD_BYTES);
        assertThat(summary(over)).isEqualTo("IGNORE INPUT_TOO_LARGE");
        assertThat(over.decision().detail()).isEqualTo("execution input of 262145 bytes exceeds Step Functions' 262144; not scheduled");
        assertThat(over.decision().ttl()).hasValue("1767225700");
        assertThat(over.execution()).isEmpty();
    }

    @Test
    void of_detailsSayHowManyHops_andWhatIsStopped() {
        assertThat(plan(insert(n("1767225700")), NOW).decision().detail()).isEqualTo("TTL set; expires at 2026-01-01T00:01:40Z");
        assertThat(plan(modify(n("1767225700"), n("1767225800")), NOW).decision().detail())
                .isEqualTo("TTL changed; expires at 2026-01-01T00:03:20Z; stopping the execution for the old TTL");
        assertThat(plan(insert(n(Long.toString(NOW_S + 360 * DAY + 1))), NOW).decision().detail())
                .isEqualTo("TTL set; expires at 2026-12-27T00:00:01Z after 1 horizon hop");
        assertThat(plan(insert(n(Long.toString(NOW_S + 800 * DAY))), NOW).decision().detail())
                .isEqualTo("TTL set; expires at 2028-03-11T00:00:00Z after 2 horizon hops");
        assertThat(plan(modify(n("1767225700"), null), NOW).decision().detail())
                .isEqualTo("TTL removed; stopping the execution for the old TTL 1767225700");
        assertThat(plan(modify(n("1767225700"), n("1767225600000")), NOW).decision().detail())
                .isEqualTo("TTL 1767225600000 looks like milliseconds; as seconds it is year 57971; not scheduled;"
                        + " stopping the execution for the old TTL 1767225700");
        assertThat(plan(remove(n("1767229200"), Writer.UNKNOWN, NOW), NOW).decision().detail())
                .isEqualTo("deleted before its TTL; stopping its execution");
        assertThat(plan(Changes.withTable(modify(n("1767225700"), n("1767225800")), "t".repeat(262_144)), NOW).decision().detail())
                .isEqualTo("execution input of 262369 bytes exceeds Step Functions' 262144; not scheduled; stopping the execution for the old TTL");
    }

    @Test
    void of_cancelsLogTheTtlTheRecordNowHolds() {
        assertThat(plan(modify(n("1767225700"), null), NOW).decision().ttl()).isEmpty();
        assertThat(plan(modify(n("1767225700"), AttributeText.s("soon")), NOW).decision().ttl()).hasValue("soon");
        assertThat(plan(remove(n("1767229200"), Writer.UNKNOWN, NOW), NOW).decision().ttl()).hasValue("1767229200");
    }

    @Test
    void of_oldTtlExactlyOneHorizonAway_stopsTheChainAndTheSuccessorsItMayHaveBecome() {
        ItemPlan changed = plan(modify(n(Long.toString(NOW_S + 360 * DAY)), n("1767225700")), NOW);

        assertThat(summary(changed)).isEqualTo("SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z hops=0 stops=["
                + "20261227T000000Z-orders-*, 20261227T000000Z-orders-*-h1, 20261227T000000Z-orders-*-h2, 20261227T000000Z-orders-*-h3]");
    }

    @Test
    void of_aDecisionAlreadyRestatedAsACancel_isRefused() {
        Decision cancel = plan(modify(n("1767225700"), null), NOW).decision();

        assertThatThrownBy(() -> ItemPlan.of(cancel, NOW, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never cancels");
    }

    @Test
    void toString_showsVerdictReasonStartAndStops_neverTheKey() {
        ItemPlan changed = plan(modify(n("1767225700"), n("1767225800")), NOW);

        assertThat(changed.toString()).matches("SCHEDULE\\(TTL_CHANGED, start 20260101T000320Z-orders-[a-z2-7]{20}, "
                + "stop \\[20260101T000140Z-orders-[a-z2-7]{20}\\]\\)");
        assertThat(plan(insert(null), NOW)).hasToString("IGNORE(NO_TTL)");
        assertThat(plan(remove(n("1767229200"), Writer.UNKNOWN, NOW), NOW).toString())
                .matches("CANCEL\\(ITEM_DELETED, stop \\[20260101T010000Z-orders-[a-z2-7]{20}\\]\\)");
    }

    @Test
    void longestNames_fitStepFunctionsLimitWithRestartAndSuccessorSuffixes() {
        String table = "T".repeat(255);
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("x".repeat(2048))));
        TtlValue ttl = ((TtlValue.Valid) TtlValue.check(AttributeText.n("99999999999"), "ttl", NOW)).ttl();
        ItemExecutionName base = ItemExecutionName.first(table, key, ttl);
        ItemExecutionName restart = base.restarted(NOW);
        String successor = restart.successor(ItemPlan.horizonHops(Instant.ofEpochSecond(99_999_999_999L), NOW)).toString();

        assertThat(base.toString()).hasSize(ItemExecutionName.MAX_BASE_LENGTH);
        assertThat(restart.toString()).hasSize(ItemExecutionName.MAX_BASE_LENGTH + ItemExecutionName.RESTART_SUFFIX_LENGTH);
        assertThat(successor.length()).isLessThanOrEqualTo(StepFunctionsLimits.MAX_NAME_LENGTH);
        assertThat(StepFunctionsLimits.isValidName(successor)).isTrue();
        // The largest hop count any schedulable TTL can need, from a 1970 clock, still fits.
        long maxHops = ItemPlan.horizonHops(Instant.ofEpochSecond(99_999_999_999L), Instant.EPOCH);
        assertThat(restart.successor(maxHops).toString().length()).isLessThanOrEqualTo(StepFunctionsLimits.MAX_NAME_LENGTH);
    }

    /**
     * {@code VERDICT REASON ...}, with the digest part of names as {@code *} so the table stays readable;
     * a stop of a table name too long to read is shown by how many there are.
     */
    static String summary(ItemPlan plan) {
        Decision decision = plan.decision();
        StringBuilder out = new StringBuilder(decision.verdict() + " " + decision.reason());
        plan.start().ifPresent(start -> out.append(" expireAt=").append(start.input().expireAt())
                .append(" hops=").append(start.input().horizonHops()));
        if (decision.verdict() != Decision.Verdict.IGNORE) {
            if (decision.table().length() > 100) {
                out.append(" stops=[").append(plan.stops().size()).append(']');
            } else {
                List<String> stops = new ArrayList<>();
                plan.stops().forEach(name -> stops.add(name.replaceAll("-[a-z2-7]{20}", "-*")));
                out.append(" stops=").append(stops);
            }
        } else {
            assertThat(plan.stops()).as("an ignored change stops nothing").isEmpty();
        }
        return out.toString();
    }
}
