package dev.punctual.functions;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import dev.punctual.expiry.ChangeProcessor;
import dev.punctual.expiry.Decision;
import dev.punctual.expiry.Plan;
import dev.punctual.expiry.Scheduled;
import dev.punctual.expiry.StreamChange;
import dev.punctual.expiry.ThrottleBackoff;
import dev.punctual.expiry.ThrottledException;
import dev.punctual.names.Digests;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * One structured log line per stream record: {@code table}, {@code keyDigest}, {@code ttl},
 * {@code decision}, {@code reason}, {@code outcome}, {@code execution}, {@code stopped},
 * {@code sequenceNumber}. Never key values or image content: the key appears only as its digest.
 * A failure's exception class goes under {@code failure}: Powertools reserves {@code error} (and
 * warns "Attempted to use reserved key 'error'" on every line that uses it). Throttling gets one line
 * per batch, not one per throttled call. A failed call AWS answered logs its error code and HTTP status,
 * not a stack trace; anything else logs its stack trace.
 */
final class DecisionLog implements ChangeProcessor.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(ExpiryStreamHandler.class);

    @Override
    public void decided(StreamChange change, Plan plan, Scheduled scheduled) {
        Decision decision = plan.decision();
        List<Object> fields = common(change, decision);
        fields.add(entry("outcome", lower(scheduled.outcome().name())));
        scheduled.executionName().ifPresent(name -> fields.add(entry("execution", name)));
        if (!scheduled.stopped().isEmpty()) {
            fields.add(entry("stopped", scheduled.stopped()));
        }
        if (decision.reason().warn()) {
            LOG.warn(decision.detail(), fields.toArray());
        } else {
            LOG.info(decision.detail(), fields.toArray());
        }
    }

    @Override
    public void failed(StreamChange change, Plan plan, RuntimeException error) {
        List<Object> fields = common(change, plan.decision());
        fields.add(entry("outcome", "failed"));
        plan.execution().ifPresent(name -> fields.add(entry("execution", name)));
        fields.add(entry("failure", error.getClass().getSimpleName()));
        if (error instanceof ThrottledException) {
            // Expected under load and already summed up by the batch's throttled line: no stack trace.
            LOG.warn("still throttled at the invocation's deadline; the record is reported for retry: "
                    + error.getMessage(), fields.toArray());
            return;
        }
        if (error instanceof AwsServiceException service) {
            // A service's answer (an injected fault, a throttle past the SDK's retries, a 5xx): its code says
            // what happened; a stack trace per record would only repeat the SDK's frames under every fault.
            fields.add(entry("errorCode", service.awsErrorDetails() == null ? "unknown" : service.awsErrorDetails().errorCode()));
            fields.add(entry("statusCode", service.statusCode()));
        } else {
            fields.add(error);
        }
        LOG.warn("scheduling failed (a Step Functions call, or in windowed mode a DynamoDB call); the record is reported"
                + " for retry", fields.toArray());
    }

    /** Step Functions throttled calls of this batch: one line for the whole batch. */
    void throttled(int records, ThrottleBackoff.Batch retries) {
        LOG.warn("Step Functions throttled this batch; throttled calls were retried with backoff and full jitter"
                        + (retries.gaveUp() > 0 ? " until the invocation's deadline" : ", all of them in time"),
                entry("outcome", "throttled"),
                entry("records", records),
                entry("throttledCalls", retries.throttledCalls()),
                entry("gaveUp", retries.gaveUp()));
    }

    @Override
    public void skipped(StreamChange change, String failedSequenceNumber) {
        LOG.info("not tried: an earlier record of the same item failed; reported for retry",
                entry("table", change.table()),
                entry("keyDigest", Digests.keyDigest(change.table(), change.key())),
                entry("outcome", "skipped"),
                entry("sequenceNumber", change.sequenceNumber()),
                entry("after", failedSequenceNumber));
    }

    /** A record the edge could not read; logged here so the handler logs every record once. */
    void unreadable(String sequenceNumber, RuntimeException error) {
        LOG.warn("stream record not readable: " + error.getMessage() + "; reported for retry",
                entry("outcome", "failed"),
                entry("sequenceNumber", sequenceNumber),
                entry("failure", error.getClass().getSimpleName()));
    }

    private static List<Object> common(StreamChange change, Decision decision) {
        List<Object> fields = new ArrayList<>(10);
        fields.add(entry("table", change.table()));
        fields.add(entry("keyDigest", Digests.keyDigest(change.table(), change.key())));
        decision.ttl().ifPresent(ttl -> fields.add(entry("ttl", ttl)));
        fields.add(entry("decision", lower(decision.verdict().name())));
        fields.add(entry("reason", decision.reason().name()));
        fields.add(entry("sequenceNumber", change.sequenceNumber()));
        return fields;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
