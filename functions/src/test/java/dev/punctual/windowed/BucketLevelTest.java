package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.statemachine.BucketWorkflow;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class BucketLevelTest {

    @Test
    void horizon_isTheCoarserLevelsCascadeLeadPlusItsWidth() {
        assertThat(BucketLevel.SECOND.horizon()).isEqualTo(1 + 60);
        assertThat(BucketLevel.MINUTE.horizon()).isEqualTo(600 + 3_600);
        assertThat(BucketLevel.HOUR.horizon()).isEqualTo(21_600 + 86_400);
        assertThat(BucketLevel.DAY.horizon()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void forLead_picksTheFinestLevelWhoseHorizonReachesTheItem_aMinuteAtTheFinest() {
        assertThat(BucketLevel.forLead(-5)).as("one-second buckets are a fallback only").isEqualTo(BucketLevel.MINUTE);
        assertThat(BucketLevel.forLead(0)).isEqualTo(BucketLevel.MINUTE);
        assertThat(BucketLevel.forLead(119)).isEqualTo(BucketLevel.MINUTE);
        assertThat(BucketLevel.forLead(4_199)).isEqualTo(BucketLevel.MINUTE);
        assertThat(BucketLevel.forLead(4_200)).isEqualTo(BucketLevel.HOUR);
        assertThat(BucketLevel.forLead(107_999)).isEqualTo(BucketLevel.HOUR);
        assertThat(BucketLevel.forLead(108_000)).isEqualTo(BucketLevel.DAY);
    }

    @Test
    void aCoarseBucketCascades_beforeAnyOfItsItemsFallsOutsideTheFinerHorizon() {
        // An item placed at a level with the longest lead that level allows must still find its
        // bucket not yet cascaded, and the cascade must put its children within the finer horizon.
        for (BucketLevel level : new BucketLevel[] {BucketLevel.HOUR, BucketLevel.DAY}) {
            long now = 1_800_000_000L;
            long due = now + level.finer().orElseThrow().horizon();
            Bucket bucket = Bucket.containing("t", level, due);
            assertThat(bucket.naturalWake()).as("%s cascade time", level).isAfter(Instant.ofEpochSecond(now));
            long cascadeAt = bucket.naturalWake().getEpochSecond();
            assertThat(bucket.end() - 1 - cascadeAt).as("%s: furthest child's lead at the cascade", level)
                    .isLessThan(level.finer().orElseThrow().horizon());
        }
    }

    @Test
    void plannedMinute_wakesItsSlackAndASecondBeforeItsFirstDueSecond_neverBeforeTheMinuteNorPastItsLastSecond() {
        long minute = 1_800_000_000L - 1_800_000_000L % 60;
        Bucket bucket = new Bucket("t", BucketLevel.MINUTE, minute);
        Instant now = Instant.ofEpochSecond(minute - 3_000);

        assertThat(BucketInput.planned(bucket, "ttl", now, minute + 42).wakeAt()).as("the slack and a second before it")
                .isEqualTo(Instant.ofEpochSecond(minute + 42 - BucketInput.PLAN_SLACK.toSeconds() - 1));
        assertThat(BucketInput.planned(bucket, "ttl", now, minute + 5).wakeAt()).isEqualTo(bucket.naturalWake());
        assertThat(BucketInput.planned(bucket, "ttl", now, minute - 5).wakeAt()).isEqualTo(bucket.naturalWake());
        assertThat(BucketInput.planned(bucket, "ttl", now, minute + 90).wakeAt())
                .isEqualTo(Instant.ofEpochSecond(minute + 59 - BucketInput.PLAN_SLACK.toSeconds() - 1));
        Bucket hour = Bucket.containing("t", BucketLevel.HOUR, minute);
        assertThat(BucketInput.planned(hour, "ttl", now, minute + 42)).as("only a minute is planned")
                .isEqualTo(BucketInput.first(hour, "ttl", now));
    }

    @Test
    void wakeAtIn_readsTheWakeOfAnInputThisClassWrote_andIsMaxForAnythingElse() {
        BucketInput input = BucketInput.planned(new Bucket("t", BucketLevel.MINUTE, 1_800_000_000L - 1_800_000_000L % 60), "ttl",
                Instant.ofEpochSecond(1_799_990_000L), 1_800_000_000L - 1_800_000_000L % 60 + 7);

        assertThat(BucketInput.wakeAtIn(input.toJson())).isEqualTo(input.wakeAt());
        assertThat(BucketInput.wakeAtIn(null)).isEqualTo(Instant.MAX);
        assertThat(BucketInput.wakeAtIn("{\"wakeAt\": \"2027-01-01T00:00:00Z\"}")).as("not as this class writes it").isEqualTo(Instant.MAX);
        assertThat(BucketInput.wakeAtIn("{\"wakeAt\":\"2027-99-01T00:00:00Z\"}")).isEqualTo(Instant.MAX);
    }

    @Test
    void bucket_onBoundaries_startsOnMultiplesOfItsWidth() {
        assertThat(Bucket.containing("t", BucketLevel.MINUTE, 1_800_000_059L).start()).isEqualTo(1_800_000_000L);
        assertThat(Bucket.containing("t", BucketLevel.MINUTE, 1_800_000_060L).start()).isEqualTo(1_800_000_060L);
        assertThat(Bucket.containing("t", BucketLevel.HOUR, 1_799_996_400L).start()).isEqualTo(1_799_996_400L);
        assertThatThrownBy(() -> new Bucket("t", BucketLevel.MINUTE, 1_800_000_001L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of 60");
    }

    @Test
    void executionName_sortsByStart_namesTheLevel_andTellsTablesWithTheSameLabelApart() {
        Bucket a = new Bucket("orders-2026-with-a-very-long-name-one", BucketLevel.MINUTE, 1_800_000_000L);
        Bucket b = new Bucket("orders-2026-with-a-very-long-name-two", BucketLevel.MINUTE, 1_800_000_000L);

        assertThat(a.executionName()).startsWith("20270115T080000Z-minute-orders-2026-with-a-very-");
        assertThat(a.executionName()).isNotEqualTo(b.executionName());
        assertThat(a.executionName().length() + "-h99".length()).isLessThanOrEqualTo(80);
    }

    @Test
    void naturalWake_oneSecondAndMinuteBucketsWakeTheirWarmLeadEarly_coarseBucketsTheirCascadeLeadEarly() {
        long start = 1_800_000_000L - 1_800_000_000L % 86_400;
        assertThat(new Bucket("t", BucketLevel.SECOND, start).naturalWake())
                .isEqualTo(Instant.ofEpochSecond(start).minus(BucketWorkflow.WARM_LEAD));
        assertThat(new Bucket("t", BucketLevel.MINUTE, start).naturalWake())
                .isEqualTo(Instant.ofEpochSecond(start).minus(BucketWorkflow.WARM_LEAD));
        assertThat(new Bucket("t", BucketLevel.HOUR, start).naturalWake()).isEqualTo(Instant.ofEpochSecond(start - 600));
        assertThat(new Bucket("t", BucketLevel.DAY, start).naturalWake()).isEqualTo(Instant.ofEpochSecond(start - 21_600));
    }

    @Test
    void cascadeLead_startsEveryChild_noLaterThanTheChildsOwnWake() {
        // A coarse bucket that cascaded at its start would start the child holding its first
        // second (or minute, or hour) after that child should already have woken: late deletes.
        for (BucketLevel level : new BucketLevel[] {BucketLevel.HOUR, BucketLevel.DAY}) {
            Bucket parent = Bucket.containing("t", level, 1_800_000_000L);
            Bucket firstChild = parent.finerContaining(parent.start());
            assertThat(level.cascadeLead()).as("%s cascade lead", level).isPositive();
            assertThat(parent.naturalWake()).as("%s cascades before its first child wakes", level)
                    .isBefore(firstChild.naturalWake());
        }
    }

    @Test
    void labels_nameEachLevel_andReadBack() {
        for (BucketLevel level : BucketLevel.values()) {
            assertThat(BucketLevel.fromLabel(level.label())).isEqualTo(level);
        }
        assertThat(BucketLevel.forLead(Long.MAX_VALUE)).isEqualTo(BucketLevel.DAY);
        assertThatThrownBy(() -> BucketLevel.fromLabel("week")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown bucket level 'week'; expected second, minute, hour or day");
        assertThatThrownBy(() -> new Bucket("t", BucketLevel.SECOND, 5).finerContaining(5)).isInstanceOf(IllegalStateException.class);
    }
}
