package dev.punctual.statemachine;

/**
 * Step Functions' limits that both sides of the contract obey: whoever starts an execution (the
 * stream handler, backfill) and the local engine that runs it. They live here, in the module both
 * depend on, so neither depends on the other for them.
 */
public final class StepFunctionsLimits {

    /**
     * The largest execution input or output, and the largest payload a state may pass on, in UTF-8
     * bytes (256 KiB).
     */
    public static final int MAX_PAYLOAD_BYTES = 262_144;

    private StepFunctionsLimits() {
    }
}
