package dev.punctual.windowed;

import java.time.Instant;

/**
 * Told the instants at which a one-second bucket's work passes its phases, so that a benchmark can
 * show where a second's time goes: invoked (normally {@link dev.punctual.statemachine.BucketWorkflow#WARM_LEAD}
 * early), sealed, read, woke at its second. The deletes are not reported here: whoever runs the
 * worker sees each one return at its DynamoDB client.
 *
 * <p>Called on the worker's thread in the middle of its work, so an implementation only records the
 * instant: it must not block, log or throw. It is told the bucket, never an item.
 */
public interface BucketPhases {

    /** Reports nothing: the default outside a benchmark. */
    BucketPhases NONE = new BucketPhases() {
        @Override
        public void invoked(Bucket bucket, Instant at) {
        }

        @Override
        public void sealed(Bucket bucket, Instant at) {
        }

        @Override
        public void read(Bucket bucket, int items, Instant at) {
        }

        @Override
        public void woke(Bucket bucket, Instant at) {
        }
    };

    /** The worker was handed the bucket; it seals it now. */
    void invoked(Bucket bucket, Instant at);

    /** The seal is written: entries indexed after it are the handler's to place. */
    void sealed(Bucket bucket, Instant at);

    /** The bucket's entries are read: {@code items} distinct items to delete at its second. */
    void read(Bucket bucket, int items, Instant at);

    /** The wait for the bucket's second ended; its deletes start now. */
    void woke(Bucket bucket, Instant at);
}
