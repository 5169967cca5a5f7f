package dev.punctual.expiry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutionNamesTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private static TtlValue ttl(String text) {
        return ((TtlValue.Valid) TtlValue.check(AttributeText.n(text), "ttl", NOW)).ttl();
    }

    @Test
    void backfillNames_followTheExecutionThatBeganTheRun_andTheOneThatContinuesIt() {
        String first = "arn:aws:states:us-east-1:123456789012:execution:punctual-backfill:first";
        String second = "arn:aws:states:us-east-1:123456789012:execution:punctual-backfill:second";

        String run = ExecutionNames.backfillRunId(NOW, first);
        assertThat(run).matches("20260101T000000Z-[a-z2-7]{6}").isEqualTo(ExecutionNames.backfillRunId(NOW, first));
        assertThat(ExecutionNames.backfillRunId(NOW, second)).as("two executions beginning in one second").isNotEqualTo(run);

        String successor = ExecutionNames.backfillSuccessorName("orders", run, first);
        assertThat(successor).matches("backfill-orders-" + run + "-[a-z2-7]{8}").hasSizeLessThanOrEqualTo(80)
                .isEqualTo(ExecutionNames.backfillSuccessorName("orders", run, first))
                .isNotEqualTo(ExecutionNames.backfillSuccessorName("orders", run, second))
                .isNotEqualTo(ExecutionNames.backfillSuccessorName("orders", run + "x", first))
                .isNotEqualTo(ExecutionNames.backfillSuccessorName("orders", "20260101T000000Z-aaaaaa", first));
        // Pinned, as the expiry names are: a changed scheme would name a retried step's run or successor anew.
        assertThat(run).isEqualTo("20260101T000000Z-c6os3g");
        assertThat(successor).isEqualTo("backfill-orders-20260101T000000Z-c6os3g-5aoslbhq");
    }

    @Test
    void name_isStableAcrossVersions() {
        // Pinned: a changed scheme would start every pending item a second time after an upgrade.
        // Recomputed independently: SHA-256 over length-prefixed ("punctual/execution/v1", table,
        // attribute count, then name, type, value per attribute, TTL text), base32, first 20.
        assertThat(ExecutionNames.name("orders", ItemKey.of(Map.of("id", AttributeText.s("a"))), ttl("1795302312")))
                .isEqualTo("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr");
        assertThat(ExecutionNames.keyDigest("orders", ItemKey.of(Map.of("id", AttributeText.s("a")))))
                .isEqualTo("7f6b21020f5a");
    }

    @Test
    void name_startsWithTheRoundedUpExpiryThenTheTable() {
        String name = ExecutionNames.name("my.table-v2_x", ItemKey.of(Map.of("id", AttributeText.n("7"))), ttl("1795302311.2"));

        assertThat(name).matches("20261121T230512Z-my\\.table-v2_x-[a-z2-7]{20}");
    }

    @Test
    void name_doesNotDependOnTheOrderKeyAttributesCameIn() {
        Map<String, AttributeText> forward = new LinkedHashMap<>();
        forward.put("pk", AttributeText.s("a"));
        forward.put("sk", AttributeText.n("1"));
        Map<String, AttributeText> backward = new LinkedHashMap<>();
        backward.put("sk", AttributeText.n("1"));
        backward.put("pk", AttributeText.s("a"));

        assertThat(ExecutionNames.name("t", ItemKey.of(forward), ttl("1767225700")))
                .isEqualTo(ExecutionNames.name("t", ItemKey.of(backward), ttl("1767225700")));
    }

    @Test
    void name_differsForEveryPartOfTheIdentity() {
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("a")));
        String base = ExecutionNames.name("t", key, ttl("1767225700"));

        assertThat(ExecutionNames.name("u", key, ttl("1767225700"))).isNotEqualTo(base);
        assertThat(ExecutionNames.name("t", ItemKey.of(Map.of("id", AttributeText.s("b"))), ttl("1767225700"))).isNotEqualTo(base);
        assertThat(ExecutionNames.name("t", ItemKey.of(Map.of("id", AttributeText.n("1"))), ttl("1767225700")))
                .isNotEqualTo(ExecutionNames.name("t", ItemKey.of(Map.of("id", AttributeText.s("1"))), ttl("1767225700")));
        assertThat(ExecutionNames.name("t", ItemKey.of(Map.of("idx", AttributeText.s("a"))), ttl("1767225700"))).isNotEqualTo(base);
        assertThat(ExecutionNames.name("t", key, ttl("1767225700.0"))).as("same instant, other text").isNotEqualTo(base);
        assertThat(ExecutionNames.name("t", ItemKey.of(Map.of("a", AttributeText.s("bc"))), ttl("1767225700")))
                .isNotEqualTo(ExecutionNames.name("t", ItemKey.of(Map.of("ab", AttributeText.s("c"))), ttl("1767225700")));
    }

    @Test
    void name_digestsBinaryKeysByTheirBytes() {
        byte[] bytes = {0, 1, 2, (byte) 0xFF};
        ItemKey padded = ItemKey.of(Map.of("id", AttributeText.b(Base64.getEncoder().encodeToString(bytes))));

        assertThat(ExecutionNames.name("t", padded, ttl("1767225700")))
                .isNotEqualTo(ExecutionNames.name("t", ItemKey.of(Map.of("id", AttributeText.s("AAEC/w=="))), ttl("1767225700")));
        assertThat(ExecutionNames.isLegal(ExecutionNames.name("t", padded, ttl("1767225700")))).isTrue();
    }

    @Test
    void longestNames_fitStepFunctionsLimitWithRestartAndSuccessorSuffixes() {
        String table = "T".repeat(255);
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("x".repeat(2048))));
        String base = ExecutionNames.name(table, key, ttl("99999999999"));
        String restart = ExecutionNames.restartName(base, NOW);
        String successor = ExecutionNames.successorName(restart, ExpiryRules.horizonHops(Instant.ofEpochSecond(99_999_999_999L), NOW));

        assertThat(base).hasSize(ExecutionNames.MAX_BASE_LENGTH);
        assertThat(restart).hasSize(ExecutionNames.MAX_BASE_LENGTH + ExecutionNames.RESTART_SUFFIX_LENGTH);
        assertThat(successor.length()).isLessThanOrEqualTo(ExecutionNames.MAX_NAME_LENGTH);
        assertThat(ExecutionNames.isLegal(successor)).isTrue();
        // The largest hop count any schedulable TTL can need, from a 1970 clock, still fits.
        long maxHops = ExpiryRules.horizonHops(Instant.ofEpochSecond(99_999_999_999L), Instant.EPOCH);
        assertThat(ExecutionNames.successorName(restart, maxHops).length()).isLessThanOrEqualTo(ExecutionNames.MAX_NAME_LENGTH);
    }

    @Test
    void tableLabel_replacesWhatExecutionNamesForbid() {
        assertThat(ExecutionNames.tableLabel("a b/c:d")).isEqualTo("a_b_c_d");
        assertThat(ExecutionNames.tableLabel("é")).isEqualTo("_");
        assertThat(ExecutionNames.isLegal(ExecutionNames.name("a b/c:d{é}", ItemKey.of(Map.of("id", AttributeText.s("a"))),
                ttl("1767225700")))).isTrue();
    }

    @Test
    void isLegal_refusesWhatStepFunctionsRefuses() {
        assertThat(ExecutionNames.isLegal("a-b_c.d")).isTrue();
        for (String bad : new String[] {"", "a b", "a:b", "a/b", "a#b", "a\u0001b", "é", "x".repeat(81)}) {
            assertThat(ExecutionNames.isLegal(bad)).as(bad).isFalse();
        }
    }

    @Test
    void restartName_dependsOnTheHolderNotOnWhoAsks() {
        String base = ExecutionNames.name("t", ItemKey.of(Map.of("id", AttributeText.s("a"))), ttl("1767225700"));

        assertThat(ExecutionNames.restartName(base, NOW)).isEqualTo(ExecutionNames.restartName(base, NOW))
                .startsWith(base + "-r").matches(".*-r[a-z2-7]{8}");
        assertThat(ExecutionNames.restartName(base, NOW.plusMillis(1))).isNotEqualTo(ExecutionNames.restartName(base, NOW));
    }

    @Test
    void keyDigest_isShortAndDoesNotHoldTheKey() {
        String digest = ExecutionNames.keyDigest("orders", ItemKey.of(Map.of("id", AttributeText.s("secret-user-42"))));

        assertThat(digest).matches("[0-9a-f]{12}").doesNotContain("secret");
        assertThat(digest).isNotEqualTo(ExecutionNames.keyDigest("orders", ItemKey.of(Map.of("id", AttributeText.s("secret-user-43")))));
    }

    @Test
    void otherNames_areStableAcrossVersions() {
        // Pinned and recomputed independently like name(): a changed scheme would, after an upgrade,
        // start buckets and restarts a second time, write redelivered chunks beside their first copy
        // and give a redelivered expiry event another id.
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("a")));
        assertThat(ExecutionNames.bucketName("orders", "minute", Instant.ofEpochSecond(1_800_000_000L)))
                .isEqualTo("20270115T080000Z-minute-orders-vivnib");
        assertThat(ExecutionNames.restartName("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr", NOW))
                .isEqualTo("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr-roy3wagcn");
        assertThat(ExecutionNames.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(key, "1800000030"))))
                .isEqualTo("paz5lvxtsddpt3cebaam");
        assertThat(ExecutionNames.expiryEventId("orders", key, "1795302312", "4900000000000000000001"))
                .isEqualTo("24adg7twuzswb52yrcfp25es2x");
    }

    @Test
    void chunkDigest_isTheSameForTheSameChunk_andDiffersForAnyOtherInTheSameSecond() {
        ItemKey a = ItemKey.of(Map.of("id", AttributeText.s("a")));
        ItemKey b = ItemKey.of(Map.of("id", AttributeText.s("b")));
        String digest = ExecutionNames.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(a, "1800000030")));

        assertThat(ExecutionNames.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(a, "1800000030")))).isEqualTo(digest);
        assertThat(List.of(
                ExecutionNames.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(b, "1800000030"))),
                ExecutionNames.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(a, "1800000029.5"))),
                ExecutionNames.chunkDigest("orders", 1_800_000_030L, List.of(Map.entry(a, "1800000030"), Map.entry(b, "1800000030"))),
                ExecutionNames.chunkDigest("orders", 1_800_000_031L, List.of(Map.entry(a, "1800000030"))),
                ExecutionNames.chunkDigest("orders2", 1_800_000_030L, List.of(Map.entry(a, "1800000030")))))
                .doesNotContain(digest).doesNotHaveDuplicates();
    }

    @Test
    void expiryEventId_differsForEveryPartOfTheRecord_andTakesMissingPartsAsEmpty() {
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("a")));
        String id = ExecutionNames.expiryEventId("orders", key, "1795302312", "49001");

        assertThat(List.of(
                ExecutionNames.expiryEventId("orders2", key, "1795302312", "49001"),
                ExecutionNames.expiryEventId("orders", ItemKey.of(Map.of("id", AttributeText.s("b"))), "1795302312", "49001"),
                ExecutionNames.expiryEventId("orders", key, "1795302313", "49001"),
                ExecutionNames.expiryEventId("orders", key, "1795302312", "49002")))
                .doesNotContain(id).doesNotHaveDuplicates();
        assertThat(ExecutionNames.expiryEventId("orders", key, null, null)).isEqualTo(ExecutionNames.expiryEventId("orders", key, "", ""));
    }

    @Test
    void isLegal_atTheEdgesOfLengthAndOfPrintableAscii() {
        assertThat(ExecutionNames.isLegal("x".repeat(80))).isTrue();
        assertThat(ExecutionNames.isLegal("x".repeat(81))).isFalse();
        assertThat(ExecutionNames.isLegal("!")).as("0x21, the first printable").isTrue();
        assertThat(ExecutionNames.isLegal(" ")).as("0x20").isFalse();
        assertThat(ExecutionNames.isLegal("}")).as("0x7D, reserved").isFalse();
        assertThat(ExecutionNames.isLegal("a?b")).as("the first reserved character").isFalse();
        assertThat(ExecutionNames.isLegal("\u007F")).as("0x7F").isFalse();
    }

    @Test
    void tableLabel_keepsExactlyLettersDigitsUnderscoreDotAndDash() {
        assertThat(ExecutionNames.tableLabel("azAZ09_.-")).isEqualTo("azAZ09_.-");
        assertThat(ExecutionNames.tableLabel("`{@[/:")).isEqualTo("______");
        assertThat(ExecutionNames.tableLabel("t".repeat(30))).hasSize(ExecutionNames.TABLE_LABEL_LENGTH);
    }
}
