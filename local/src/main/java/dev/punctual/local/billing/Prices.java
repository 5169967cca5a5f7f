package dev.punctual.local.billing;

/**
 * The prices the local runtime turns its counts into dollars with: us-east-1, on-demand, in one
 * place. Each figure names its source; check them before quoting (they change).
 */
public final class Prices {

    /** Step Functions Standard, per state transition: $0.025 per 1,000 (aws.amazon.com/step-functions/pricing). */
    public static final double STATE_TRANSITION = 0.025 / 1_000;
    /** Step Functions Express, per request (execution started): $1.00 per million (aws.amazon.com/step-functions/pricing). */
    public static final double EXPRESS_REQUEST = 1.00 / 1_000_000;
    /**
     * Step Functions Express, per GB-second of duration (100 ms steps, memory in 64 MB steps): $0.00001667,
     * the first tier (the first 1,000 GB-hours a month; cheaper after) (aws.amazon.com/step-functions/pricing).
     */
    public static final double EXPRESS_GB_SECOND = 0.00001667;
    /**
     * CloudWatch Logs, per GB ingested: $0.50, standard log class; Step Functions' execution logs are vended
     * logs, at this price for the first 10 TB a month (aws.amazon.com/cloudwatch/pricing).
     */
    public static final double LOG_INGESTION_GB = 0.50;
    /** Lambda arm64, per GB-second: $0.0000133334 (aws.amazon.com/lambda/pricing). */
    public static final double LAMBDA_GB_SECOND = 0.0000133334;
    /** Lambda, per request: $0.20 per million (aws.amazon.com/lambda/pricing). */
    public static final double LAMBDA_REQUEST = 0.20 / 1_000_000;
    /** DynamoDB on-demand, per write request unit: $0.625 per million (aws.amazon.com/dynamodb/pricing/on-demand). */
    public static final double WRITE_REQUEST_UNIT = 0.625 / 1_000_000;
    /** DynamoDB on-demand, per read request unit: $0.125 per million (aws.amazon.com/dynamodb/pricing/on-demand). */
    public static final double READ_REQUEST_UNIT = 0.125 / 1_000_000;

    /**
     * EventBridge custom events (PutEvents), per event: $1.00 per million; each 64 KB chunk of an
     * entry counts as one event (aws.amazon.com/eventbridge/pricing).
     */
    public static final double CUSTOM_EVENT = 1.00 / 1_000_000;
    /** The size of the chunks EventBridge bills an entry by. */
    public static final int EVENT_BILLING_CHUNK_BYTES = 64 * 1024;

    private Prices() {
    }
}
