package dev.punctual.names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class BucketExecutionNameTest {

    private static final Instant START = Instant.ofEpochSecond(1_800_000_000L);
    private static final BucketExecutionName.Base MINUTE = BucketExecutionName.Base.of("orders", "minute", START);

    @Test
    void suffixes_followTheBucketsNameInOrder_andOnlyWhenThereIsOne() {
        assertThat(MINUTE).hasToString("20270115T080000Z-minute-orders-vivnib");
        assertThat(new BucketExecutionName(MINUTE, false, 0, 0)).hasToString("20270115T080000Z-minute-orders-vivnib");
        assertThat(new BucketExecutionName(MINUTE, true, 0, 0)).hasToString("20270115T080000Z-minute-orders-vivnib-e");
        assertThat(new BucketExecutionName(MINUTE, false, 1, 0)).hasToString("20270115T080000Z-minute-orders-vivnib-h1");
        assertThat(new BucketExecutionName(MINUTE, false, 0, 2)).hasToString("20270115T080000Z-minute-orders-vivnib-g2");
        assertThat(new BucketExecutionName(MINUTE, true, 1, 2)).hasToString("20270115T080000Z-minute-orders-vivnib-e-h1-g2");
    }

    @Test
    void parse_givesBackThePartsOfEveryNameItRenders_theLongestIncluded() {
        BucketExecutionName.Base longTable = BucketExecutionName.Base.of("orders-2026-with-a-very-long-name-e-h1-g2",
                "second", Instant.parse("9999-12-31T23:59:59Z"));
        BucketExecutionName longest = new BucketExecutionName(longTable, true, 7_999, 10);

        assertThat(longTable.toString()).hasSize(55);
        assertThat(longest.toString()).hasSize(67);
        for (BucketExecutionName.Base base : new BucketExecutionName.Base[] {MINUTE, longTable,
                BucketExecutionName.Base.of("a.b-c_d", "day", Instant.EPOCH), BucketExecutionName.Base.of("x-e", "hour", START),
                BucketExecutionName.Base.of("sfx-abcdef", "minute", START), BucketExecutionName.Base.of("", "minute", START)}) {
            for (boolean early : new boolean[] {false, true}) {
                for (int hop : new int[] {0, 1, 7_999}) {
                    for (int generation : new int[] {0, 1, 10}) {
                        BucketExecutionName name = new BucketExecutionName(base, early, hop, generation);
                        assertThat(BucketExecutionName.parse(name.toString())).as(name.toString()).contains(name);
                        assertThat(NameText.isLegal(name.toString())).as(name.toString()).isTrue();
                    }
                }
            }
        }
        BucketExecutionName parsed = BucketExecutionName.parse("20270115T080000Z-minute-orders-vivnib-e-h1-g2").orElseThrow();
        assertThat(parsed.bucket()).returns(START, BucketExecutionName.Base::start)
                .returns("minute", BucketExecutionName.Base::level).returns("orders", BucketExecutionName.Base::tableLabel)
                .returns("vivnib", BucketExecutionName.Base::tableDigest);
        assertThat(parsed).returns(true, BucketExecutionName::early).returns(1, BucketExecutionName::hop)
                .returns(2, BucketExecutionName::generation);
    }

    @Test
    void parse_findsNothingInWhatItDoesNotRender() {
        String base = MINUTE.toString();
        for (String other : new String[] {"", base + "-h0", base + "-g0", base + "-g1-h1", base + "-h1-e", base + "-e-e",
                base + "-h01", base + "-r", base + "-", base.replace("vivnib", "vivni1"), base.replace("minute", "Minute"),
                "20270231T080000Z-minute-orders-vivnib", "20270115T250000Z-minute-orders-vivnib",
                "20261121T230512Z-orders-2qkcspxkyffuktdwa5gr", "backfill-orders-20260101T000000Z-c6os3g-5aoslbhq"}) {
            assertThat(BucketExecutionName.parse(other)).as(other).isEmpty();
        }
    }

    @Test
    void tablePart_isTheSameInEveryBucketOfATable_andTellsApartTablesCutAlike() {
        String table = "orders-2026-with-a-very-long-name";

        assertThat(BucketExecutionName.Base.of(table, "day", Instant.EPOCH).tablePart())
                .isEqualTo(BucketExecutionName.Base.of(table, "minute", START).tablePart());
        assertThat(BucketExecutionName.Base.of(table + "-2", "minute", START).tablePart())
                .isNotEqualTo(BucketExecutionName.Base.of(table, "minute", START).tablePart())
                .startsWith("orders-2026-with-a-very-");
    }

    @Test
    void constructors_refusePartsNoNameHas() {
        assertThatThrownBy(() -> BucketExecutionName.Base.of("orders", "minute", START.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole second");
        assertThatThrownBy(() -> BucketExecutionName.Base.of("orders", "a-b", START)).hasMessageContaining("level");
        assertThatThrownBy(() -> BucketExecutionName.Base.of("orders", "", START)).hasMessageContaining("level");
        assertThatThrownBy(() -> new BucketExecutionName.Base(START, "minute", "a b", "vivnib")).hasMessageContaining("table");
        assertThatThrownBy(() -> new BucketExecutionName.Base(START, "minute", "orders", "vivni")).hasMessageContaining("table");
        assertThatThrownBy(() -> new BucketExecutionName(MINUTE, false, -1, 0)).hasMessageContaining("-1");
        assertThatThrownBy(() -> new BucketExecutionName(MINUTE, false, 0, -1)).hasMessageContaining("-1");
    }

    @Test
    void base_isStableAcrossVersions() {
        // Pinned and recomputed independently like an item's name: a changed scheme would, after an
        // upgrade, start buckets a second time.
        assertThat(BucketExecutionName.Base.of("orders", "minute", Instant.ofEpochSecond(1_800_000_000L)))
                .hasToString("20270115T080000Z-minute-orders-vivnib");
    }
}
