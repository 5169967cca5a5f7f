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

    @Test
    void backfillNames_followTheExecutionThatBeganTheRun_andTheOneThatContinuesIt() {
        String first = "arn:aws:states:us-east-1:123456789012:execution:punctual-backfill:first";
        String second = "arn:aws:states:us-east-1:123456789012:execution:punctual-backfill:second";

        String run = BackfillExecutionName.runId(NOW, first);
        assertThat(run).matches("20260101T000000Z-[a-z2-7]{6}").isEqualTo(BackfillExecutionName.runId(NOW, first));
        String other = BackfillExecutionName.runId(NOW, second);
        assertThat(other).as("two executions beginning in one second").isNotEqualTo(run);

        String successor = BackfillExecutionName.successor("orders", run, first).toString();
        assertThat(successor).matches("backfill-orders-" + run + "-[a-z2-7]{8}").hasSizeLessThanOrEqualTo(80)
                .isEqualTo(BackfillExecutionName.successor("orders", run, first).toString())
                .isNotEqualTo(BackfillExecutionName.successor("orders", run, second).toString())
                .isNotEqualTo(BackfillExecutionName.successor("orders", other, first).toString())
                .isNotEqualTo(BackfillExecutionName.successor("orders", "20260101T000000Z-aaaaaa", first).toString());
        // Pinned, as the expiry names are: a changed scheme would name a retried step's run or successor anew.
        assertThat(run).isEqualTo("20260101T000000Z-c6os3g");
        assertThat(successor).isEqualTo("backfill-orders-20260101T000000Z-c6os3g-5aoslbhq");
    }
}
