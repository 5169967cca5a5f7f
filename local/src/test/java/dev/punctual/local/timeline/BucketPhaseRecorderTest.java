package dev.punctual.local.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.windowed.Bucket;
import dev.punctual.windowed.BucketLevel;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class BucketPhaseRecorderTest {

    private static final long S = 1_795_000_000L;
    private static final Instant SECOND = Instant.ofEpochSecond(S);

    private final BucketPhaseRecorder recorder = new BucketPhaseRecorder();

    @Test
    void trackedTable_recordsEachPhaseOfEachBucket() {
        recorder.track("orders");
        Bucket bucket = Bucket.containing("orders", BucketLevel.SECOND, S);

        recorder.invoked(bucket, SECOND.minusSeconds(1));
        recorder.woke(bucket, SECOND);
        recorder.sealed(bucket, SECOND.plusMillis(2));
        recorder.read(bucket, 1000, SECOND.plusMillis(9));

        assertThat(recorder.phases("orders", S)).contains(new BucketPhaseRecorder.Phases(SECOND.minusSeconds(1), SECOND,
                SECOND.plusMillis(2), SECOND.plusMillis(9), 1000));
        assertThat(recorder.phases("orders", S + 1)).isEmpty();
    }

    @Test
    void retriedBucket_keepsTheFirstReportOfEachPhase() {
        recorder.track("orders");
        Bucket bucket = Bucket.containing("orders", BucketLevel.SECOND, S);
        recorder.woke(bucket, SECOND);
        recorder.read(bucket, 1000, SECOND.plusMillis(9));

        recorder.woke(bucket, SECOND.plusSeconds(2));
        recorder.read(bucket, 999, SECOND.plusSeconds(2));

        BucketPhaseRecorder.Phases phases = recorder.phases("orders", S).orElseThrow();
        assertThat(phases.woke()).isEqualTo(SECOND);
        assertThat(phases.read()).isEqualTo(SECOND.plusMillis(9));
        assertThat(phases.items()).isEqualTo(1000);
        assertThat(phases.sealed()).as("not reached").isNull();
    }

    @Test
    void untrackedOrForgottenTable_keepsNothing() {
        Bucket other = Bucket.containing("other", BucketLevel.SECOND, S);
        recorder.woke(other, SECOND);
        recorder.track("orders");
        recorder.woke(Bucket.containing("orders", BucketLevel.SECOND, S), SECOND);
        recorder.forget("orders");

        assertThat(recorder.phases("other", S)).isEmpty();
        assertThat(recorder.phases("orders", S)).isEmpty();
    }
}
