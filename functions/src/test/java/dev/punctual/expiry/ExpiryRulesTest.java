package dev.punctual.expiry;

import static dev.punctual.expiry.Changes.KEY;
import static dev.punctual.expiry.Changes.TABLE;
import static dev.punctual.expiry.Changes.insert;
import static dev.punctual.expiry.Changes.modify;
import static dev.punctual.expiry.Changes.modifyWithoutOldImage;
import static dev.punctual.expiry.Changes.n;
import static dev.punctual.expiry.Changes.remove;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.punctual.expiry.StreamChange.Writer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rules table: every rule, with its boundaries, as (record → what the rules found), the same in
 * every mode. {@code NOW} is 2026-01-01T00:00:00Z = 1767225600; five years before it is
 * 2021-01-01T00:00:00Z = 1609459200. What per-item mode makes of these (names, horizon hops, stops, its
 * payload limit) is {@code dev.punctual.peritem.ItemPlanTest}'s.
 */
class ExpiryRulesTest {

    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    static final long NOW_S = NOW.getEpochSecond();
    static final long DAY = 86_400;

    private final ExpiryRules rules = new ExpiryRules("ttl");

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
                arguments("future TTL", insert(n("1767225700")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z"),
                arguments("TTL exactly now", insert(n("1767225600")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:00:00Z"),
                arguments("TTL a second ago: at once", insert(n("1767225599")), "SCHEDULE TTL_SET expireAt=2025-12-31T23:59:59Z"),
                arguments("fraction rounds up", insert(n("1767225600.001")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:00:01Z"),
                arguments("fraction .999 rounds up", insert(n("1767225600.999")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:00:01Z"),
                arguments("past fraction rounds up", insert(n("1700000000.001")), "SCHEDULE TTL_SET expireAt=2023-11-14T22:13:21Z"),
                arguments("exponent notation", insert(n("1.7676E9")), "SCHEDULE TTL_SET expireAt=2026-01-05T08:00:00Z"),
                arguments("lower-case exponent and sign", insert(n("+17676e5")), "SCHEDULE TTL_SET expireAt=2026-01-05T08:00:00Z"),
                arguments("trailing zero fraction", insert(n("1767225700.000")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z"),
                arguments("5 years back exactly: still scheduled", insert(n("1609459200")), "SCHEDULE TTL_SET expireAt=2021-01-01T00:00:00Z"),
                arguments("5 years back and a millisecond", insert(n("1609459199.999")), "IGNORE TTL_TOO_OLD"),
                arguments("5 years back and a second", insert(n("1609459199")), "IGNORE TTL_TOO_OLD"),
                arguments("zero", insert(n("0")), "IGNORE TTL_TOO_OLD"),
                arguments("negative", insert(n("-1")), "IGNORE TTL_TOO_OLD"),
                arguments("huge negative", insert(n("-99999999999999999999999999999999999999")), "IGNORE TTL_TOO_OLD"),
                arguments("just below the milliseconds threshold (year 5138)", insert(n("99999999999")),
                        "SCHEDULE TTL_SET expireAt=5138-11-16T09:46:39Z"),
                arguments("milliseconds threshold", insert(n("100000000000")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 5138"),
                arguments("milliseconds", insert(n("1767225600000")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 57971"),
                arguments("microseconds", insert(n("1767225600000000")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 56003119"),
                arguments("last second of year 9999", insert(n("253402300799")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 9999"),
                arguments("first second of year 10000", insert(n("253402300800")), "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 10000"),
                arguments("38 digits", insert(n("99999999999999999999999999999999999999")),
                        "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year beyond 1000000000"),
                arguments("38 significant digits with exponent", insert(n("1.2345678901234567890123456789012345678E+125")),
                        "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year beyond 1000000000"),

                // --- MODIFY
                arguments("unchanged TTL", modify(n("1767225700"), n("1767225700")), "IGNORE TTL_UNCHANGED"),
                arguments("TTL added", modify(null, n("1767225700")), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z"),
                arguments("TTL changed: the old is stale", modify(n("1767225700"), n("1767225800")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:03:20Z stale=1767225700"),
                arguments("same value, other text: reschedule", modify(n("1767225700"), n("1767225700.0")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z stale=1767225700"),
                arguments("String TTL becomes a Number: nothing stale", modify(AttributeText.s("x"), n("1767225700")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z"),
                arguments("milliseconds become seconds: nothing stale", modify(n("1767225700000"), n("1767225700")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z"),
                arguments("old TTL too old: nothing stale", modify(n("5"), n("1767225700")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z"),
                arguments("TTL removed", modify(n("1767225700"), null), "IGNORE NO_TTL stale=1767225700"),
                arguments("TTL becomes a String", modify(n("1767225700"), AttributeText.s("1767225700")),
                        "IGNORE TTL_NOT_A_NUMBER type S stale=1767225700"),
                arguments("TTL becomes milliseconds", modify(n("1767225700"), n("1767225700000")),
                        "IGNORE TTL_LOOKS_LIKE_MILLISECONDS year 57971 stale=1767225700"),
                arguments("still no TTL", modify(null, null), "IGNORE NO_TTL"),
                arguments("String TTL stays a String", modify(AttributeText.s("x"), AttributeText.s("x")), "IGNORE TTL_NOT_A_NUMBER type S"),
                arguments("no old image: schedule, nothing known stale", modifyWithoutOldImage(n("1767225700")),
                        "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z"),
                arguments("old TTL two horizons out: stale all the same", modify(n(Long.toString(NOW_S + 800 * DAY)), n("1767225700")),
                        "SCHEDULE TTL_CHANGED expireAt=2026-01-01T00:01:40Z stale=" + (NOW_S + 800 * DAY)),

                // --- REMOVE
                arguments("deleted by native TTL", remove(n("1767225500"), Writer.TTL_SERVICE, NOW), "IGNORE REMOVED_BY_TTL_SERVICE"),
                arguments("deleted early by the application", remove(n("1767229200"), Writer.UNKNOWN, NOW),
                        "IGNORE REMOVED stale=1767229200"),
                arguments("deleted with no creation time", remove(n("1767225500"), Writer.UNKNOWN, null),
                        "IGNORE REMOVED stale=1767225500"),
                arguments("our delete: TTL before the record's minute", remove(n("1767225570"), Writer.UNKNOWN, NOW),
                        "IGNORE REMOVED_AT_EXPIRY"),
                arguments("our delete: TTL 60 s after the record's minute (the boundary)", remove(n("1767225660"), Writer.UNKNOWN, NOW),
                        "IGNORE REMOVED_AT_EXPIRY"),
                arguments("TTL 61 s after the record's minute: an early delete", remove(n("1767225661"), Writer.UNKNOWN, NOW),
                        "IGNORE REMOVED stale=1767225661"),
                arguments("TTL 60.5 s after the minute rounds up to 61: an early delete", remove(n("1767225660.5"), Writer.UNKNOWN, NOW),
                        "IGNORE REMOVED stale=1767225660.5"),
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
                        "id", AttributeText.s("é".repeat(1024))))), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z"),
                arguments("key value of 2049 bytes", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "id", AttributeText.s("é".repeat(1024) + "x")))), "IGNORE KEY_NOT_VALID"),
                arguments("2048-byte partition key and 1024-byte sort key", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "pk", AttributeText.s("p".repeat(2048)), "sk", AttributeText.s("s".repeat(1024))))),
                        "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z"),
                arguments("two key values over 1024 bytes", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "pk", AttributeText.s("p".repeat(1025)), "sk", AttributeText.s("s".repeat(1025))))), "IGNORE KEY_NOT_VALID"),
                arguments("binary key of 2049 bytes", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "id", AttributeText.b(java.util.Base64.getEncoder().encodeToString(new byte[2049]))))), "IGNORE KEY_NOT_VALID"),
                arguments("binary key not base64", Changes.withKey(insert(n("1767225700")), ItemKey.of(Map.of(
                        "id", AttributeText.b("***")))), "IGNORE KEY_NOT_VALID"),
                arguments("table name of 256 KB: the rules know no payload limit", Changes.withTable(insert(n("1767225700")),
                        "t".repeat(262_144)), "SCHEDULE TTL_SET expireAt=2026-01-01T00:01:40Z"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void decide_followsTheRulesTable(String rule, StreamChange change, String expected) {
        Decision decision = rules.decide(change, NOW);

        assertThat(summary(decision)).as(rule).isEqualTo(expected);
        assertThat(decision.reason().warn()).as("warns exactly for bad data")
                .isEqualTo(expected.contains("NOT_A_NUMBER") || expected.contains("NOT_PARSEABLE")
                        || expected.contains("MILLISECONDS") || expected.contains("KEY_NOT_VALID"));
    }

    @Test
    void decide_namesTheItemAndTheAttribute_whateverTheVerdict() {
        List<Decision> decisions = List.of(rules.decide(insert(n("1767225700")), NOW), rules.decide(insert(null), NOW),
                rules.decide(remove(n("1767229200"), Writer.UNKNOWN, NOW), NOW));

        assertThat(decisions).allSatisfy(decision -> {
            assertThat(decision.table()).isEqualTo(TABLE);
            assertThat(decision.key()).isEqualTo(KEY);
            assertThat(decision.ttlAttribute()).isEqualTo("ttl");
        });
        assertThat(new ExpiryRules("expiresAt").decide(insert(n("1767225700")), NOW).ttlAttribute()).isEqualTo("expiresAt");
    }

    @Test
    void decide_keepsTheTtlTextExactly_forTheConditionalDeleteAndTheLog() {
        Decision changed = rules.decide(modify(n("1.7672257E9"), n("1767225600.001")), NOW);

        assertThat(changed.newTtl().orElseThrow().text()).isEqualTo("1767225600.001");
        assertThat(changed.oldTtl().orElseThrow().text()).isEqualTo("1.7672257E9");
        assertThat(changed.ttl()).hasValue("1767225600.001");
        assertThat(rules.decide(remove(n("1767229200"), Writer.UNKNOWN, NOW), NOW).ttl()).hasValue("1767229200");
        assertThat(rules.decide(modify(n("1767225700"), AttributeText.s("soon")), NOW).ttl()).hasValue("soon");
        assertThat(rules.decide(modify(n("1767225700"), null), NOW).ttl()).isEmpty();
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
        assertThat(rules.decide(remove(n("1767229200"), Writer.UNKNOWN, NOW), NOW).detail())
                .isEqualTo("deleted before its TTL; cancellation is off, the pending execution will find the item gone");
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
    void decide_detailsSayWhetherTheTtlWasSetOrChanged() {
        assertThat(rules.decide(insert(n("1767225700")), NOW).detail()).isEqualTo("TTL set; expires at 2026-01-01T00:01:40Z");
        assertThat(rules.decide(modify(n("1767225700"), n("1767225800")), NOW).detail())
                .isEqualTo("TTL changed; expires at 2026-01-01T00:03:20Z");
    }

    @Test
    void restated_keepsWhatTheRulesFound_andRefusesAVerdictTheyDidNotFindTheTtlFor() {
        Decision changed = rules.decide(modify(n("1767225700"), n("1767225800")), NOW);
        Decision noTtl = rules.decide(insert(null), NOW);

        Decision restated = changed.restated(Decision.Verdict.CANCEL, Reason.INPUT_TOO_LARGE, "too large");

        assertThat(restated.verdict()).isEqualTo(Decision.Verdict.CANCEL);
        assertThat(restated.reason()).isEqualTo(Reason.INPUT_TOO_LARGE);
        assertThat(restated.detail()).isEqualTo("too large");
        assertThat(List.of(restated.table(), restated.key(), restated.ttlAttribute(), restated.newTtl(), restated.oldTtl(), restated.ttl()))
                .containsExactly(changed.table(), changed.key(), changed.ttlAttribute(), changed.newTtl(), changed.oldTtl(), changed.ttl());
        assertThatThrownBy(() -> noTtl.restated(Decision.Verdict.SCHEDULE, Reason.TTL_SET, "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs the new TTL");
        assertThatThrownBy(() -> noTtl.restated(Decision.Verdict.CANCEL, Reason.TTL_REMOVED, "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs the stale old TTL");
    }

    /**
     * {@code VERDICT REASON ...}: the TTL to expire at, and the old TTL the change left stale, if any. The
     * rules never cancel: stopping what is stale is a mode's.
     */
    static String summary(Decision decision) {
        StringBuilder out = new StringBuilder(decision.verdict() + " " + decision.reason());
        if (decision.reason() == Reason.TTL_NOT_A_NUMBER) {
            out.append(" type ").append(decision.detail().replaceAll(".* is of type (\\w+),.*", "$1"));
        }
        if (decision.reason() == Reason.TTL_LOOKS_LIKE_MILLISECONDS) {
            out.append(" year ").append(decision.detail().replaceAll(".*as seconds it is year (.*); not scheduled", "$1"));
        }
        decision.newTtl().ifPresent(ttl -> out.append(" expireAt=").append(ttl.expireAt()));
        decision.oldTtl().ifPresent(ttl -> out.append(" stale=").append(ttl.text()));
        return out.toString();
    }
}
