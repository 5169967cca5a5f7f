package dev.punctual.names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.TtlValue;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ItemExecutionNameTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final ItemKey KEY = ItemKey.of(Map.of("id", AttributeText.s("a")));

    static TtlValue ttl(String text) {
        return ((TtlValue.Valid) TtlValue.check(AttributeText.n(text), "ttl", NOW)).ttl();
    }

    @Test
    void suffixes_areWrittenAsTheAslAndTheStaleExecutionStopsExpectThem() {
        ItemExecutionName first = ItemExecutionName.first("orders", KEY, ttl("1795302312"));
        ItemExecutionName restarted = first.restarted(NOW);

        assertThat(first).hasToString("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr");
        assertThat(first.successor(0)).hasToString("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr-h0");
        assertThat(first.successor(8100)).hasToString("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr-h8100");
        assertThat(restarted).hasToString("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr-roy3wagcn");
        assertThat(restarted.successor(2)).hasToString("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr-roy3wagcn-h2");
        assertThat(restarted.successor(2).chainName()).isEqualTo(restarted.toString());
    }

    @Test
    void parse_givesBackThePartsOfEveryNameItRenders_theLongestIncluded() {
        ItemExecutionName longest = ItemExecutionName.first("T".repeat(255),
                ItemKey.of(Map.of("id", AttributeText.s("x".repeat(2048)))), ttl("99999999999")).restarted(NOW).successor(8100);
        ItemExecutionName first = ItemExecutionName.first("a-b_c.d-e-h1-r2", KEY, ttl("1795302312"));

        assertThat(longest.toString()).hasSize(ItemExecutionName.MAX_BASE_LENGTH + ItemExecutionName.RESTART_SUFFIX_LENGTH + 6)
                .hasSizeLessThanOrEqualTo(80);
        for (ItemExecutionName name : new ItemExecutionName[] {longest, first, first.successor(0), first.successor(17),
                first.restarted(NOW), first.restarted(NOW).successor(99_999), longest.successor(1)}) {
            assertThat(ItemExecutionName.parse(name.toString())).as(name.toString()).contains(name);
            assertThat(NameText.isLegal(name.toString())).as(name.toString()).isTrue();
        }
        assertThat(ItemExecutionName.parse(first.successor(Long.MAX_VALUE / 10).toString())).as("18 digits")
                .contains(first.successor(Long.MAX_VALUE / 10));
        assertThat(ItemExecutionName.parse(first.successor(3).toString()).orElseThrow())
                .returns(first.base(), ItemExecutionName::base).returns("", ItemExecutionName::restart)
                .returns(3L, ItemExecutionName::hopsLeft);
    }

    @Test
    void parse_findsNothingInWhatItDoesNotRender() {
        String base = ItemExecutionName.first("orders", KEY, ttl("1795302312")).toString();
        for (String other : new String[] {"", base + "-h", base + "-h01", base + "-h-1", base + "-r", base + "-rabc",
                base + "-h1-roy3wagcn", base + "-g1", base + "x", "x" + base, "sessions-u1",
                "20270115T080000Z-minute-orders-vivnib", "backfill-orders-20260101T000000Z-c6os3g-5aoslbhq",
                base.replace("2qkcspxkyffuktdwa5gr", "2qkcspxkyffuktdwa5g1"), base.replace('T', 't')}) {
            assertThat(ItemExecutionName.parse(other)).as(other).isEmpty();
        }
    }

    @Test
    void restarted_dependsOnTheBaseAndTheHolderOnly() {
        ItemExecutionName first = ItemExecutionName.first("t", KEY, ttl("1767225700"));

        assertThat(first.successor(4).restarted(NOW)).isEqualTo(first.restarted(NOW));
        assertThat(first.restarted(NOW).restarted(NOW)).isEqualTo(first.restarted(NOW));
        assertThat(first.restarted(NOW.plusNanos(1))).isNotEqualTo(first.restarted(NOW));
        assertThat(first.restarted(NOW.plusSeconds(1))).isNotEqualTo(first.restarted(NOW));
        assertThat(first.restarted(NOW).hopsLeft()).isEqualTo(ItemExecutionName.CHAIN_START);
    }

    @Test
    void constructor_refusesPartsNoNameHas() {
        String base = ItemExecutionName.first("t", KEY, ttl("1767225700")).base();

        assertThatThrownBy(() -> new ItemExecutionName("sessions-u1", "", ItemExecutionName.CHAIN_START))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("base name");
        assertThatThrownBy(() -> new ItemExecutionName(base + "-h1", "", ItemExecutionName.CHAIN_START))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ItemExecutionName(base, "abcdefg", 0)).hasMessageContaining("8 base32");
        assertThatThrownBy(() -> new ItemExecutionName(base, "abcdefg1", 0)).hasMessageContaining("8 base32");
        assertThatThrownBy(() -> new ItemExecutionName(base, "", -2)).hasMessageContaining("-2");
        assertThatThrownBy(() -> new ItemExecutionName(base, "", 0).successor(-1)).hasMessageContaining("-1");
        assertThat(new ItemExecutionName(base, "abcdefgh", 0)).hasToString(base + "-rabcdefgh-h0");
    }

    @Test
    void first_isStableAcrossVersions() {
        // Pinned: a changed scheme would start every pending item a second time after an upgrade.
        // Recomputed independently: SHA-256 over length-prefixed ("punctual/execution/v1", table,
        // attribute count, then name, type, value per attribute, TTL text), base32, first 20.
        assertThat(ItemExecutionName.first("orders", ItemKey.of(Map.of("id", AttributeText.s("a"))), ttl("1795302312")))
                .hasToString("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr");
        // Pinned likewise: a changed scheme would start a restart a second time.
        assertThat(ItemExecutionName.parse("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr").orElseThrow().restarted(NOW))
                .hasToString("20261121T230512Z-orders-2qkcspxkyffuktdwa5gr-roy3wagcn");
    }

    @Test
    void first_startsWithTheRoundedUpExpiryThenTheTable() {
        String name = ItemExecutionName.first("my.table-v2_x", ItemKey.of(Map.of("id", AttributeText.n("7"))), ttl("1795302311.2"))
                .toString();

        assertThat(name).matches("20261121T230512Z-my\\.table-v2_x-[a-z2-7]{20}");
    }

    @Test
    void first_doesNotDependOnTheOrderKeyAttributesCameIn() {
        Map<String, AttributeText> forward = new LinkedHashMap<>();
        forward.put("pk", AttributeText.s("a"));
        forward.put("sk", AttributeText.n("1"));
        Map<String, AttributeText> backward = new LinkedHashMap<>();
        backward.put("sk", AttributeText.n("1"));
        backward.put("pk", AttributeText.s("a"));

        assertThat(ItemExecutionName.first("t", ItemKey.of(forward), ttl("1767225700")))
                .isEqualTo(ItemExecutionName.first("t", ItemKey.of(backward), ttl("1767225700")));
    }

    @Test
    void first_differsForEveryPartOfTheIdentity() {
        ItemKey key = ItemKey.of(Map.of("id", AttributeText.s("a")));
        ItemExecutionName base = ItemExecutionName.first("t", key, ttl("1767225700"));

        assertThat(ItemExecutionName.first("u", key, ttl("1767225700"))).isNotEqualTo(base);
        assertThat(ItemExecutionName.first("t", ItemKey.of(Map.of("id", AttributeText.s("b"))), ttl("1767225700"))).isNotEqualTo(base);
        assertThat(ItemExecutionName.first("t", ItemKey.of(Map.of("id", AttributeText.n("1"))), ttl("1767225700")))
                .isNotEqualTo(ItemExecutionName.first("t", ItemKey.of(Map.of("id", AttributeText.s("1"))), ttl("1767225700")));
        assertThat(ItemExecutionName.first("t", ItemKey.of(Map.of("idx", AttributeText.s("a"))), ttl("1767225700"))).isNotEqualTo(base);
        assertThat(ItemExecutionName.first("t", key, ttl("1767225700.0"))).as("same instant, other text").isNotEqualTo(base);
        assertThat(ItemExecutionName.first("t", ItemKey.of(Map.of("a", AttributeText.s("bc"))), ttl("1767225700")))
                .isNotEqualTo(ItemExecutionName.first("t", ItemKey.of(Map.of("ab", AttributeText.s("c"))), ttl("1767225700")));
    }

    @Test
    void first_digestsBinaryKeysByTheirBytes() {
        byte[] bytes = {0, 1, 2, (byte) 0xFF};
        ItemKey padded = ItemKey.of(Map.of("id", AttributeText.b(Base64.getEncoder().encodeToString(bytes))));

        assertThat(ItemExecutionName.first("t", padded, ttl("1767225700")))
                .isNotEqualTo(ItemExecutionName.first("t", ItemKey.of(Map.of("id", AttributeText.s("AAEC/w=="))), ttl("1767225700")));
        assertThat(NameText.isLegal(ItemExecutionName.first("t", padded, ttl("1767225700")).toString())).isTrue();
    }

    @Test
    void restarted_dependsOnTheHolderNotOnWhoAsks() {
        ItemExecutionName base = ItemExecutionName.first("t", ItemKey.of(Map.of("id", AttributeText.s("a"))), ttl("1767225700"));

        assertThat(base.restarted(NOW)).isEqualTo(base.restarted(NOW));
        assertThat(base.restarted(NOW).toString()).startsWith(base + "-r").matches(".*-r[a-z2-7]{8}");
        assertThat(base.restarted(NOW.plusMillis(1))).isNotEqualTo(base.restarted(NOW));
    }
}
