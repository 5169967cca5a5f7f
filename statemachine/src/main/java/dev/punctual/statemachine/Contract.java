package dev.punctual.statemachine;

import java.util.Map;

/**
 * A payload that outlives a deploy: read by code newer (or, after a rollback, older) than the code that
 * wrote it. Each carries its version in a field named {@link #FIELD} ({@code "contract": 1}); a reader
 * takes an absent field for version 1, reads every version up to {@link #version()} and refuses a newer
 * one with {@link UnsupportedContractException}, naming the contract. docs/upgrading.md lists them all,
 * and the fixtures the 0.1.0 build wrote (tests' {@code contracts/0.1.0}) hold today's code to them.
 */
public enum Contract {

    /** {@code expire-item.asl.json}'s input: the stream handler's, the backfill's and its own successor's. */
    EXPIRE_ITEM_INPUT("expire-item execution input", 1),
    /**
     * {@code expire-bucket.asl.json}'s input, which is also the runner's ({@code run-bucket.asl.json}) and,
     * with the runner's state, the bucket function's payload at every step.
     */
    BUCKET_INPUT("expire-bucket execution input and bucket step payload", 1),
    /** {@code backfill.asl.json}'s input (what a user starts it with) and its successors'. */
    BACKFILL_INPUT("backfill execution input", 1),
    /** The backfill function's payloads ({@code prepare}, {@code scanPage}, {@code finish}), built by the ASL. */
    BACKFILL_STEP("backfill step payload", 1),
    /** Windowed mode's schedule index items: entry chunks, seals and marks ({@link ScheduleIndexTable}). */
    INDEX_ITEM("schedule index item", 1),
    /** The backfill progress table's items: runs and segments ({@link BackfillProgressTable}). */
    PROGRESS_ITEM("backfill progress item", 1),
    /** The {@code ItemExpired} event's detail ({@link ExpiryEvents}). */
    ITEM_EXPIRED("ItemExpired event detail", 1),
    /**
     * A {@code --data-dir}: the Step Functions journal, its snapshots and closed-execution files, the stream
     * checkpoints, dead letters and the events file; its version is in the directory's manifest.
     */
    DATA_DIR("punctual local --data-dir", 1);

    /** The field (attribute, in DynamoDB items) that holds a payload's version. */
    public static final String FIELD = "contract";
    /** The version a payload without {@link #FIELD} has: everything 0.1.0 wrote carries the field anyway. */
    public static final int ABSENT = 1;

    private final String title;
    private final int version;

    Contract(String title, int version) {
        this.title = title;
        this.version = version;
    }

    /** What the payload is, as messages and docs/upgrading.md name it. */
    public String title() {
        return title;
    }

    /** The version this build writes, and the newest it reads. */
    public int version() {
        return version;
    }

    /**
     * The version {@code value} (a payload's {@link #FIELD}, as JSON or DynamoDB gives it: a number, a
     * string of digits or null) declares, once checked.
     *
     * @throws UnsupportedContractException when it is newer than this build reads, or not a version
     */
    public int check(Object value) {
        int declared;
        if (value == null) {
            declared = ABSENT;
        } else if (value instanceof Number number && number.doubleValue() == Math.rint(number.doubleValue())) {
            declared = number.intValue();
        } else if (value instanceof String text && text.matches("[0-9]{1,9}")) {
            declared = Integer.parseInt(text);
        } else {
            throw new UnsupportedContractException(this, "its \"" + FIELD + "\" is " + value + ", not a version number");
        }
        if (declared < 1 || declared > version) {
            throw new UnsupportedContractException(this, "it is version " + declared + " and this build of Punctual ("
                    + PunctualVersion.current() + ") reads versions 1 to " + version
                    + "; deploy the Punctual version that wrote it, or a later one (docs/upgrading.md)");
        }
        return declared;
    }

    /** {@link #check} of the {@link #FIELD} of a payload read as a map. */
    public int checkPayload(Map<String, ?> payload) {
        return check(payload == null ? null : payload.get(FIELD));
    }

    /** A payload this build cannot read: newer than it, or not versioned as a contract says. */
    public static final class UnsupportedContractException extends IllegalArgumentException {

        private static final long serialVersionUID = 1L;
        private final transient Contract contract;

        UnsupportedContractException(Contract contract, String why) {
            super("Unsupported " + contract.title + " (contract " + contract.name() + "): " + why);
            this.contract = contract;
        }

        /** The contract the payload broke. */
        public Contract contract() {
            return contract;
        }
    }
}
