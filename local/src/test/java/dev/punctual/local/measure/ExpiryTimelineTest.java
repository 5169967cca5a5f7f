package dev.punctual.local.measure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.local.measure.ExpiryTimeline.Phase;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ExpiryTimelineTest {

    private static final long S = 1_795_000_000L;
    private static final Instant SECOND = Instant.ofEpochSecond(S);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void build_groupsItemsBySecond_andTakesTheFirstAndLastOfEachItemInstant() {
        ExpiryTimeline timeline = ExpiryTimeline.builder()
                .item(S + 1, SECOND.plusMillis(1_002), SECOND.plusMillis(1_050))
                .item(S, SECOND.plusMillis(3), SECOND.plusMillis(400))
                .item(S, SECOND.plusMillis(1), SECOND.plusMillis(100))
                .item(S, SECOND.plusMillis(2), null)
                .build();

        assertThat(timeline.seconds()).extracting(ExpiryTimeline.Second::second).containsExactly(S, S + 1);
        ExpiryTimeline.Second first = timeline.seconds().get(0);
        assertThat(first.items()).isEqualTo(3);
        assertThat(first.deleted()).isEqualTo(2);
        assertThat(first.itemsRead()).as("no bucket reported").isEqualTo(-1);
        assertThat(first.millis(Phase.WAKE)).contains(1.0);
        assertThat(first.millis(Phase.LAST_WAKE)).contains(3.0);
        assertThat(first.millis(Phase.FIRST_DELETE)).contains(100.0);
        assertThat(first.millis(Phase.LAST_DELETE)).contains(400.0);
        assertThat(first.millis(Phase.SEAL)).isEmpty();
        assertThat(timeline.seconds().get(1).millis(Phase.LAST_DELETE)).as("from its own second's start").contains(50.0);
    }

    @Test
    void bucket_addsWindowedPhases_beforeTheSecondAsNegativeOffsets() {
        ExpiryTimeline timeline = ExpiryTimeline.builder()
                .item(S, null, SECOND.plusMillis(30))
                .bucket(S, SECOND.minusMillis(998), SECOND.plusNanos(250_000), SECOND.minusMillis(995), SECOND.minusMillis(990), 1)
                .build();

        ExpiryTimeline.Second second = timeline.seconds().get(0);
        assertThat(second.millis(Phase.INVOKED)).contains(-998.0);
        assertThat(second.millis(Phase.SEAL)).contains(-995.0);
        assertThat(second.millis(Phase.READ)).contains(-990.0);
        assertThat(second.millis(Phase.WAKE)).contains(0.25);
        assertThat(second.itemsRead()).isEqualTo(1);
        assertThat(second.millis(Phase.LAST_WAKE)).as("per-item mode's only").isEmpty();
    }

    @Test
    void toJson_givesEachPhasesPercentilesOverTheSeconds_theDrain_andTheSecondsThatOverran() throws Exception {
        ExpiryTimeline.Builder builder = ExpiryTimeline.builder();
        for (int i = 0; i < 10; i++) {
            Instant second = Instant.ofEpochSecond(S + i);
            // Second i's deletes run from 10 ms to (100 + 100 i) ms: the last one overruns into the next second.
            builder.item(S + i, null, second.plusMillis(10)).item(S + i, null, second.plusMillis(100 + 100L * i));
        }

        JsonNode summary = JSON.readTree(builder.build().toJson(false));

        assertThat(summary.path("seconds").asInt()).isEqualTo(10);
        assertThat(summary.path("phasesMs").path("firstDelete").path("p50").asDouble()).isEqualTo(10.0);
        assertThat(summary.path("phasesMs").path("lastDelete").path("p50").asDouble()).isEqualTo(500.0);
        assertThat(summary.path("phasesMs").path("lastDelete").path("p90").asDouble()).isEqualTo(900.0);
        assertThat(summary.path("phasesMs").path("lastDelete").path("max").asDouble()).isEqualTo(1000.0);
        assertThat(summary.path("phasesMs").has("seal")).as("only the phases reported").isFalse();
        assertThat(summary.path("drainMs").path("max").asDouble()).isEqualTo(990.0);
        assertThat(summary.path("overran").asInt()).isEqualTo(1);
        assertThat(summary.has("perSecond")).isFalse();
    }

    @Test
    void toJson_givesTheResourcesUsed_perSecondOfTheWindow() throws Exception {
        ExpiryTimeline timeline = ExpiryTimeline.builder()
                .resources(new ResourceUse(java.time.Duration.ofSeconds(4), 6_000, 2_800, 3, 45))
                .item(S, null, SECOND.plusMillis(30))
                .build();

        JsonNode cpu = JSON.readTree(timeline.toJson(false)).path("cpu");

        assertThat(cpu.path("windowSeconds").asDouble()).isEqualTo(4.0);
        assertThat(cpu.path("processMsPerSecond").asDouble()).isEqualTo(1500.0);
        assertThat(cpu.path("databaseThreadMsPerSecond").asDouble()).isEqualTo(700.0);
        assertThat(cpu.path("gcCount").asInt()).isEqualTo(3);
        assertThat(cpu.path("gcMs").asInt()).isEqualTo(45);
        assertThat(timeline.toText(false)).contains("process 1500 ms/s, DynamoDB Local's database thread 700 ms/s, over 4.0 s");
    }

    @Test
    void toJson_everySecond_listsEachSecondWithItsCountsAndPhases() throws Exception {
        ExpiryTimeline timeline = ExpiryTimeline.builder()
                .item(S, null, SECOND.plusMillis(30))
                .bucket(S, SECOND.minusMillis(999), SECOND, SECOND.minusMillis(997), SECOND.minusMillis(991), 1)
                .build();

        JsonNode second = JSON.readTree(timeline.toJson(true)).path("perSecond").get(0);

        assertThat(second.path("second").asLong()).isEqualTo(S);
        assertThat(second.path("items").asInt()).isEqualTo(1);
        assertThat(second.path("deleted").asInt()).isEqualTo(1);
        assertThat(second.path("itemsRead").asInt()).isEqualTo(1);
        assertThat(second.path("invoked").asDouble()).isEqualTo(-999.0);
        assertThat(second.path("read").asDouble()).isEqualTo(-991.0);
        assertThat(second.path("wake").asDouble()).isEqualTo(0.0);
        assertThat(second.path("firstDelete").asDouble()).isEqualTo(30.0);
        assertThat(second.path("lastDelete").asDouble()).isEqualTo(30.0);
    }

    @Test
    void toText_namesEveryPhaseReported_andOneLinePerSecondWhenAsked() {
        ExpiryTimeline timeline = ExpiryTimeline.builder()
                .item(S, SECOND.plusMillis(1), SECOND.plusMillis(30))
                .build();

        assertThat(timeline.toText(false)).contains("timeline           1 seconds").contains("wake").contains("lastDelete")
                .contains("drain").contains("overran").doesNotContain("seal").doesNotContain(Long.toString(S));
        assertThat(timeline.toText(true)).contains(S + "  1 items, 1 deleted, wake 1.0, lastWake 1.0, firstDelete 30.0,"
                + " lastDelete 30.0");
    }
}
