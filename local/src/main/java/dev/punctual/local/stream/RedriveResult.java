package dev.punctual.local.stream;

import java.util.List;

/**
 * What re-invoking the function with a dead letter's records did.
 *
 * @param id                    the dead letter
 * @param succeeded             the function processed every record
 * @param failedSequenceNumbers records the function reported as failed (partial batch response)
 * @param error                 the function's exception message when it threw, else {@code null}
 */
public record RedriveResult(String id, boolean succeeded, List<String> failedSequenceNumbers, String error) {

    public RedriveResult {
        failedSequenceNumbers = List.copyOf(failedSequenceNumbers);
    }
}
