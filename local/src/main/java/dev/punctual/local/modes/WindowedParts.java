package dev.punctual.local.modes;

import dev.punctual.local.timeline.BucketPhaseRecorder;
import java.util.Objects;

/**
 * What windowed mode wires into the runtime beyond what every mode has, for whoever asks of a windowed
 * runtime in particular (the console, the trial's timeline, tests): its expire-bucket state machine and
 * the phases its bucket function reports. A runtime hands it out through its mode, only when windowed.
 *
 * @param bucketStateMachineArn the expire-bucket state machine, one execution per one-second bucket
 * @param bucketPhases when each one-second bucket of a tracked table passed its phases (invoked, woke,
 *     sealed, read), as the bucket function tells them
 */
public record WindowedParts(String bucketStateMachineArn, BucketPhaseRecorder bucketPhases) {

    public WindowedParts {
        Objects.requireNonNull(bucketStateMachineArn, "bucketStateMachineArn");
        Objects.requireNonNull(bucketPhases, "bucketPhases");
    }
}
