package dev.punctual.names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class BackfillExecutionNameTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final String FIRST = "arn:aws:states:us-east-1:123456789012:execution:punctual-backfill:first";

    @Test
    void parse_givesBackThePartsOfEveryNameItRenders_theLongestIncluded() {
        String run = BackfillExecutionName.runId(NOW, FIRST);
        BackfillExecutionName longest = BackfillExecutionName.successor("T".repeat(255) + "-" + run, run, FIRST);

        assertThat(longest.toString()).hasSize(66);
        for (BackfillExecutionName name : new BackfillExecutionName[] {longest,
                BackfillExecutionName.successor("orders", run, FIRST), BackfillExecutionName.successor("a.b-c_d", run, FIRST),
                BackfillExecutionName.successor("", BackfillExecutionName.runId(Instant.EPOCH, ""), FIRST)}) {
            assertThat(BackfillExecutionName.parse(name.toString())).as(name.toString()).contains(name);
            assertThat(NameText.isLegal(name.toString())).as(name.toString()).isTrue();
        }
        assertThat(BackfillExecutionName.parse("backfill-orders-20260101T000000Z-c6os3g-5aoslbhq")).contains(
                new BackfillExecutionName("orders", "20260101T000000Z-c6os3g", "5aoslbhq"));
    }

    @Test
    void parse_findsNothingInWhatItDoesNotRender() {
        for (String other : new String[] {"", "backfill-orders-20260101T000000Z-c6os3g", "backfill-orders-c6os3g-5aoslbhq",
                "backfill-orders-20260101T000000Z-c6os3g-5aoslbh", "Backfill-orders-20260101T000000Z-c6os3g-5aoslbhq",
                "backfill-orders-20260101T000000Z-c6os3g-5aoslbhq-h1", "20270115T080000Z-minute-orders-vivnib"}) {
            assertThat(BackfillExecutionName.parse(other)).as(other).isEmpty();
        }
    }

    @Test
    void constructor_refusesPartsNoNameHas() {
        assertThatThrownBy(() -> BackfillExecutionName.successor("orders", "r", FIRST))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'r'");
        assertThatThrownBy(() -> new BackfillExecutionName("a b", "20260101T000000Z-c6os3g", "5aoslbhq"))
                .hasMessageContaining("'a b'");
        assertThatThrownBy(() -> new BackfillExecutionName("orders", "20260101T000000Z-c6os3g", "5aoslbh"))
                .hasMessageContaining("'5aoslbh'");
    }
}
