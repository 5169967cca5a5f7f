package dev.punctual.expiry;

import static dev.punctual.expiry.Changes.KEY;
import static dev.punctual.expiry.Changes.TABLE;
import static dev.punctual.expiry.Changes.insert;
import static dev.punctual.expiry.Changes.modify;
import static dev.punctual.expiry.Changes.modifyWithoutOldImage;
import static dev.punctual.expiry.Changes.n;
import static dev.punctual.expiry.Changes.remove;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.punctual.expiry.StreamChange.Writer;
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
 * The rules table: every rule, with its boundaries, as (record → decision). {@code NOW} is
 * 2026-01-01T00:00:00Z = 1767225600; five years before it is 2021-01-01T00:00:00Z = 1609459200.
 */
class ExpiryRulesTest {

    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    static final long NOW_S = NOW.getEpochSecond();
    static final long DAY = 86_400;

    private final ExpiryRules rules = new ExpiryRules("ttl", true);

    static Stream<Arguments> table() {
        return Stream.of(
                // --- INSERT: types (native TTL reads Numbers only)
                arguments("no TTL attribute", insert(null), "IGNORE NO_TTL"),
                arguments("String TTL", insert(AttributeText.s("1767225700")), "IGNORE TTL_NOT_A_NUMBER type S"),
                arguments("Binary TTL", insert(AttributeText.b("AQI=")), "IGNORE TTL_NOT_A_NUMBER type B"),
                arguments("BOOL TTL", insert(new AttributeText(AttributeType.BOOL, "true")), "IGNORE TTL_NOT_A_NUMBER type BOOL"),
                arguments("NULL TTL", insert(new AttributeText(AttributeType.NULL, "true")), "IGNORE TTL_NOT_A_NUMBER type NULL"),
                arguments("List TTL", insert(AttributeText.ofType(AttributeType.L)), "IGNORE TTL_NOT_A_NUMBER type L"),
                arguments("Map TTL", insert(AttributeText.ofType(AttributeType.M)), "IGNORE TTL_NOT_A_NUMBER type M"),
                arguments("String set TTL", insert(AttributeText.ofType(AttributeType.SS)), "IGNORE TTL_NOT_A_NUMBER type SS"),
                arguments("Number set TTL", insert(AttributeText.ofType(AttributeType.NS)), "IGNORE TTL_NOT_A_NUMBER type NS"),
                arguments("Binary set TTL", insert(AttributeText.ofType(AttributeType.BS)), "IGNORE TTL_NOT_A_NUMBER type BS"),
                arguments("Number that is no number", insert(n("12abc")), "IGNORE TTL_NOT_PARSEABLE"),
                arguments("Number with spaces", insert(n(" 1767225700")), "IGNORE TTL_NOT_PARSEABLE"),

                // --- INSERT: numbers
                arguments("future TTL", insert(n("1767225700")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("TTL exactly now", insert(n("1767225600")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:00:00Z hops=0 stops=[]"),
                arguments("TTL a second ago: at once", insert(n("1767225599")), "SCHEDULE TTL_SET expireAt=2025-12-31T23:59:59Z hops=0 stops=[]"),
                arguments("fraction rounds up", insert(n("1767225600.001")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:00:01Z hops=0 stops=[]"),
                arguments("fraction .999 rounds up", insert(n("1767225600.999")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:00:01Z hops=0 stops=[]"),
                arguments("past fraction rounds up", insert(n("1700000000.001")), "SCHEDULE TTL_SET expireAt=2023-11-14T22:13:21Z hops=0 stops=[]"),
                arguments("exponent notation", insert(n("1.7676E9")), "SCHEDULE TTL_SET expireAt=2026-01-05T08:00:00Z hops=0 stops=[]"),
                arguments("lower-case exponent and sign", insert(n("+17676e5")), "SCHEDULE TTL_SET expireAt=2026-01-05T08:00:00Z hops=0 stops=[]"),
                arguments("trailing zero fraction", insert(n("1767225700.000")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("5 years back exactly: still scheduled", insert(n("1609459200")), "SCHEDULE TTL_SET expireAt=2021-01-01T00:00:00Z hops=0 stops=[]"),
                arguments("5 years back and a millisecond", insert(n("1609459199.999")), "IGNORE TTL_TOO_OLD"),
                arguments("5 years back and a second", insert(n("1609459199")), "IGNORE TTL_TOO_OLD"),
                arguments("zero", insert(n("0")), "IGNORE TTL_TOO_OLD"),
                arguments("negative", insert(n("-1")), "IGNORE TTL_TOO_OLD"),
                arguments("huge negative", insert(n("-99999999999999999999999999999999999999")), "IGNORE TTL_TOO_OLD"),
                arguments("just below the milliseconds threshold (year 5138)", insert(n("99999999999")),
                        "SCHEDULE TTL_SET expireAt=5138-11-16T09:46:39Z hops=3158 stops=[]"),
                arguments("milliseconds threshold", insert(n("100000000000")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 5138"),
                arguments("milliseconds", insert(n("1767225600000")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 57971"),
                arguments("microseconds", insert(n("1767225600000000")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 56003119"),
                arguments("last second of year 9999", insert(n("253402300799")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 9999"),
                arguments("first second of year 10000", insert(n("253402300800")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 10000"),
                arguments("38 digits", insert(n("99999999999999999999999999999999999999")),
                        "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year beyond 1000000000"),
                arguments("38 significant digits with exponent", insert(n("1.2345678901234567890123456789012345678E+125")),
                        "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year beyond 1000000000"),

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
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z hops=0 stops=[20260101T000140Z-orders-*]"
                                .replace("00:01:40Z", "00:03:20Z")),
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
                arguments("String TTL stays a String", modify(AttributeText.s("x"), AttributeText.s("x")), "IGNORE TTL_NOT_A_NUMBER type S"),
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
                arguments("our delete: TTL 60 s after the record's minute (the boundary)", remove(n("1767225660"), Writer.UNKNOWN, NOW),
                        "IGNORE REMOVED_AT_EXPIRY"),
                arguments("TTL 61 s after the record's minute: an early delete", remove(n("1767225661"), Writer.UNKNOWN, NOW),
                        "CANCEL ITEM_DELETED stops=[20260101T000101Z-orders-*]"),
                arguments("TTL 60.5 s after the minute rounds up to 61: an early delete", remove(n("1767225660.5"), Writer.UNKNOWN, NOW),
                        "CANCEL ITEM_DELETED stops=[20260101T000101Z-orders-*]"),
                arguments("deleted, old TTL a String", remove(AttributeText.s("x"), Writer.UNKNOWN, NOW), "IGNORE REMOVED"),
                arguments("deleted, no TTL", remove(null, Writer.UNKNOWN, NOW), "IGNORE REMOVED"),
                arguments("deleted, old TTL too old", remove(n("5"), Writer.UNKNOWN, NOW), "IGNORE REMOVED"),
                arguments("deleted, no old image", new StreamChange(TABLE, EventName.REMOVE, KEY, false, null, false, null, "1",
                        Writer.UNKNOWN, NOW), "IGNORE NO_TTL"),

                // --- keys
                arguments("three key attributes", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "a", AttributeText.s("1"), "b", AttributeText.s("2"), "c", AttributeText.s("3")))), "IGNORE KEY_NOT_VALID"),
                arguments("key of type BOOL", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "a", new AttributeText(AttributeType.BOOL, "true")))), "IGNORE KEY_NOT_VALID"),
                arguments("partition key of 2048 bytes", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "id", AttributeText.s("é".repeat(1024))))), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("key value of 2049 bytes", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "id", AttributeText.s("é".repeat(1024) + "x")))), "IGNORE KEY_NOT_VALID"),
                arguments("2048-byte partition key and 1024-byte sort key", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "pk", AttributeText.s("p".repeat(2048)), "sk", AttributeText.s("s".repeat(1024))))),
                        "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z hops=0 stops=[]"),
                arguments("two key values over 1024 bytes", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "pk", AttributeText.s("p".repeat(1025)), "sk", AttributeText.s("s".repeat(1025))))), "IGNORE KEY_NOT_VALID"),
                arguments("binary key of 2049 bytes", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "id", AttributeText.b(java.util.Base64.getEncoder().encodeToString(new byte[2049]))))), "IGNORE KEY_NOT_VALID"),
                arguments("binary key not base64", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "id", AttributeText.b("***")))), "IGNORE KEY_NOT_VALID"),
                arguments("input over 256 KB", Changes.withTable(insert(n("1767225700")), "t".repeat(262_144)), "IGNORE INPUT_TOO_LARGE"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void decide_followsTheRulesTable(String rule, StreamChange change, String expected) {
        Decision decision = rules.decide(change, NOW);

        assertThat(summary(decision)).as(rule).isEqualTo(expected);
        assertThat(decision.reason().warn()).as("warns exactly for bad data")
                .isEqualTo(expected.contains("NOT_A_NUMBER") || expected.contains("NOT_PARSEABLE")
                        || expected.contains("MILLISECONDS") || expected.contains("KEY_NOT_VALID")
                        || expected.contains("INPUT_TOO_LARGE") || expected.contains("NO_LONGER_VALID"));
    }

    @Test
    void decide_whenCancellationIsOff_stopsNothing() {
        ExpiryRules noCancel = new ExpiryRules("ttl", false);

        assertThat(summary(noCancel.decide(modify(n("1767225700"), n("1767225800")), NOW)))
                .isEqualTo("SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:03:20Z hops=0 stops=[]");
        assertThat(summary(noCancel.decide(modify(n("1767225700"), null), NOW))).isEqualTo("IGNORE NO_TTL");
        assertThat(summary(noCancel.decide(remove(n("1767229200"), Writer.UNKNOWN, NOW), NOW))).isEqualTo("IGNORE REMOVED");
    }

    @Test
    void decide_buildsTheExactInput() {
        Decision decision = rules.decide(insert(n("1767225600.001")), NOW);

        ExecutionRequest start = decision.start().orElseThrow();
        assertThat(start.name()).isEqualTo("20260101T000001Z-orders-" + start.name().substring(24));
        assertThat(start.input().toJson()).isEqualTo("{\"table\":\"orders\",\"key\":{\"id\":{\"S\":\"a\"}},\"ttlAttribute\":\"ttl\","
                + "\"ttl\":\"1767225600.001\",\"expireAt\":\"2026-01-01T00:00:01Z\",\"horizonHops\":0,"
                + "\"chainName\":\"" + start.name() + "\"}");
    }

    @Test
    void decide_longChainsStopSuccessorsNamedAfterTheOldChain() {
        Decision first = rules.decide(insert(n(Long.toString(NOW_S + 800 * DAY))), NOW);
        String chain = first.start().orElseThrow().name();

        Decision changed = rules.decide(modify(n(Long.toString(NOW_S + 800 * DAY)), n("1767225700")), NOW.plus(Duration.ofDays(100)));

        // 700 days left: the chain has made at most one hop (its successor -h1 is live), or none
        // yet if its start was late; -h1, -h2, -h3 and the chain itself cover both.
        assertThat(changed.stops()).containsExactly(chain, chain + "-h1", chain + "-h2", chain + "-h3");
    }

    @Test
    void decide_detailsNameTheProblemForTheLog() {
        assertThat(rules.decide(insert(n("1767225600000")), NOW).detail())
                .isEqualTo("TTL 1767225600000 looks like milliseconds; as seconds it is year 57971; not scheduled");
        assertThat(rules.decide(insert(AttributeText.s("soon")), NOW).detail())
                .isEqualTo("TTL attribute 'ttl' is of type S, not a Number of epoch seconds; not scheduled (native TTL ignores it too)");
        assertThat(rules.decide(insert(n("0")), NOW).detail())
                .isEqualTo("TTL 0 is more than 5 years in the past; not scheduled (native TTL never deletes it either)");
        assertThat(rules.decide(Changes.withKey(insert(n("1")), ItemKey.of(Map.of("id", AttributeText.s("x".repeat(3000))))), NOW).detail())
                .doesNotContain("xxx");
    }

    @Test
    void decide_executionInputAtStepFunctionsLimit_isScheduled_aByteMoreIsNot() {
        // The table name is the one part of the input that can grow that far; one more character, one more byte.
        int probe = 1_000;
        int probeSize = rules.decide(Changes.withTable(insert(n("1767225700")), "t".repeat(probe)), NOW)
                .start().orElseThrow().input().sizeInBytes();
        int atLimit = probe + StepFunctionsLimits.MAX_PAYLOAD_BYTES - ItemExecutionName.RESTART_SUFFIX_LENGTH - probeSize;

        Decision fits = rules.decide(Changes.withTable(insert(n("1767225700")), "t".repeat(atLimit)), NOW);
        Decision over = rules.decide(Changes.withTable(insert(n("1767225700")), "t".repeat(atLimit + 1)), NOW);

        assertThat(fits.start().orElseThrow().input().sizeInBytes() + ItemExecutionName.RESTART_SUFFIX_LENGTH)
                .isEqualTo(StepFunctionsLimits.MAX_PAYLOAD_BYTES);
        assertThat(summary(over)).isEqualTo("IGNORE INPUT_TOO_LARGE");
        assertThat(over.detail()).isEqualTo("execution input of 262145 bytes exceeds Step Functions' 262144; not scheduled");
    }

    @Test
    void decide_recordWithoutTheImageItNeeds_namesTheStreamViewType() {
        StreamChange insertWithoutImage = new StreamChange(TABLE, EventName.INSERT, KEY, false, null, false, null, "1",
                Writer.UNKNOWN, null);
        StreamChange modifyWithoutImage = new StreamChange(TABLE, EventName.MODIFY, KEY, true, n("1767225700"), false, null, "2",
                Writer.UNKNOWN, null);
        StreamChange removeWithoutImage = new StreamChange(TABLE, EventName.REMOVE, KEY, false, null, false, null, "3",
                Writer.UNKNOWN, NOW);

        assertThat(rules.decide(insertWithoutImage, NOW).detail())
                .isEqualTo("INSERT record without a new image; the stream view type must be NEW_AND_OLD_IMAGES");
        assertThat(rules.decide(modifyWithoutImage, NOW).detail())
                .isEqualTo("MODIFY record without a new image; the stream view type must be NEW_AND_OLD_IMAGES");
        assertThat(rules.decide(removeWithoutImage, NOW).detail())
                .isEqualTo("REMOVE record without an old image; the stream view type must be NEW_AND_OLD_IMAGES");
        assertThat(List.of(rules.decide(insertWithoutImage, NOW), rules.decide(modifyWithoutImage, NOW)))
                .allSatisfy(decision -> assertThat(summary(decision)).isEqualTo("IGNORE NO_TTL"));
    }

    @Test
    void decide_detailsSayWhetherTheTtlWasSetOrChanged_andHowManyHops() {
        assertThat(rules.decide(insert(n("1767225700")), NOW).detail()).isEqualTo("TTL set; expires at 2026-01-01T00:01:40Z");
        assertThat(rules.decide(modify(n("1767225700"), n("1767225800")), NOW).detail())
                .isEqualTo("TTL changed; expires at 2026-01-01T00:03:20Z; stopping the execution for the old TTL");
        assertThat(rules.decide(insert(n(Long.toString(NOW_S + 360 * DAY + 1))), NOW).detail())
                .isEqualTo("TTL set; expires at 2026-12-27T00:00:01Z after 1 horizon hop");
        assertThat(rules.decide(insert(n(Long.toString(NOW_S + 800 * DAY))), NOW).detail())
                .isEqualTo("TTL set; expires at 2028-03-11T00:00:00Z after 2 horizon hops");
    }

    @Test
    void decide_oldTtlExactlyOneHorizonAway_stopsTheChainAndTheSuccessorsItMayHaveBecome() {
        Decision changed = rules.decide(modify(n(Long.toString(NOW_S + 360 * DAY)), n("1767225700")), NOW);

        assertThat(summary(changed)).isEqualTo("SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z hops=0 stops=["
                + "20261227T000000Z-orders-*, 20261227T000000Z-orders-*-h1, 20261227T000000Z-orders-*-h2, 20261227T000000Z-orders-*-h3]");
    }

    /** {@code VERDICT REASON ...}, with the digest part of names as {@code *} so the table stays readable. */
    static String summary(Decision decision) {
        StringBuilder out = new StringBuilder(decision.verdict() + " " + decision.reason());
        if (decision.reason() == Reason.TTL_NOT_A_NUMBER) {
            out.append(" type ").append(decision.detail().replaceAll(".* is of type (\\w+),.*", "$1"));
        }
        if (decision.reason() == Reason.TTL_LOOKS_LIKE_MILLISECONDS) {
            out.append(" year ").append(decision.detail().replaceAll(".*as seconds it is year (.*); not scheduled", "$1"));
        }
        decision.start().ifPresent(start -> out.append(" expireAt=").append(start.input().expireAt())
                .append(" hops=").append(start.input().horizonHops()));
        if (decision.verdict() != Decision.Verdict.IGNORE) {
            List<String> stops = new ArrayList<>();
            decision.stops().forEach(name -> stops.add(name.replaceAll("-[a-z2-7]{20}", "-*")));
            out.append(" stops=").append(stops);
        }
        return out.toString();
    }

    @Test
    void longestNames_fitStepFunctionsLimitWithRestartAndSuccessorSuffixes() {
        String table = "T".repeat(255);
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("x".repeat(2048))));
        TtlValue ttl = ((TtlValue.Valid) TtlValue.check(AttributeText.n("99999999999"), "ttl", NOW)).ttl();
        ItemExecutionName base = ItemExecutionName.first(table, key, ttl);
        ItemExecutionName restart = base.restarted(NOW);
        String successor = restart.successor(ExpiryRules.horizonHops(Instant.ofEpochSecond(99_999_999_999L), NOW)).toString();

        assertThat(base.toString()).hasSize(ItemExecutionName.MAX_BASE_LENGTH);
        assertThat(restart.toString()).hasSize(ItemExecutionName.MAX_BASE_LENGTH + ItemExecutionName.RESTART_SUFFIX_LENGTH);
        assertThat(successor.length()).isLessThanOrEqualTo(StepFunctionsLimits.MAX_NAME_LENGTH);
        assertThat(StepFunctionsLimits.isValidName(successor)).isTrue();
        // The largest hop count any schedulable TTL can need, from a 1970 clock, still fits.
        long maxHops = ExpiryRules.horizonHops(Instant.ofEpochSecond(99_999_999_999L), Instant.EPOCH);
        assertThat(restart.successor(maxHops).toString().length()).isLessThanOrEqualTo(StepFunctionsLimits.MAX_NAME_LENGTH);
    }
}
