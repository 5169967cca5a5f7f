package dev.punctual.functions;

import dev.punctual.expiry.Executions;
import dev.punctual.expiry.ThrottledException;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionAlreadyExistsException;
import software.amazon.awssdk.services.sfn.model.ExecutionDoesNotExistException;
import software.amazon.awssdk.services.sfn.model.ExecutionListItem;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;

/**
 * {@link Executions} on the Step Functions API through the SDK's {@link SfnClient}: AWS itself, or
 * the local runtime's endpoint. Retryable failures (throttling, 5xx, I/O) are retried by the SDK's
 * standard retry mode (3 attempts) within a bounded call time, then surface as SDK exceptions; a call
 * still throttled then surfaces as {@link ThrottledException}, which the core retries with backoff for
 * as long as the invocation has time.
 */
public final class SfnExecutions implements Executions, AutoCloseable {

    private final SfnClient sfn;
    private final ExpirySettings settings;

    /** An adapter over a client the caller owns and closes. */
    public SfnExecutions(SfnClient sfn, ExpirySettings settings) {
        this.sfn = sfn;
        this.settings = settings;
    }

    /**
     * An adapter with its own client, configured from {@code settings}. With an endpoint override
     * and no {@code AWS_ACCESS_KEY_ID} in the environment it signs with the dummy credentials
     * {@code local}/{@code local} in us-east-1, which is what the local runtime accepts; otherwise
     * it uses the default credential chain and the state machine's region.
     */
    public static SfnExecutions create(ExpirySettings settings) {
        return new SfnExecutions(AwsClients.stepFunctions(settings, null), settings);
    }

    /**
     * As {@link #create(ExpirySettings)}, with the client's requests carried by {@code transport}
     * instead of the Apache HTTP client: the local runtime's in-process route to its engine. The
     * transport belongs to the caller.
     */
    public static SfnExecutions create(ExpirySettings settings, SdkHttpClient transport) {
        return new SfnExecutions(AwsClients.stepFunctions(settings, Objects.requireNonNull(transport, "transport")), settings);
    }

    @Override
    public StartResult start(String name, String inputJson) {
        try {
            sfn.startExecution(r -> r.stateMachineArn(settings.stateMachineArn()).name(name).input(inputJson));
            return StartResult.STARTED;
        } catch (ExecutionAlreadyExistsException e) {
            return StartResult.NAME_TAKEN;
        } catch (SdkServiceException e) {
            throw throttledOr(e, "StartExecution");
        }
    }

    @Override
    public Holder describe(String name) {
        DescribeExecutionResponse execution;
        try {
            execution = sfn.describeExecution(r -> r.executionArn(settings.executionArn(name)));
        } catch (ExecutionDoesNotExistException e) {
            return new Holder(Status.MISSING, null);
        } catch (SdkServiceException e) {
            throw throttledOr(e, "DescribeExecution");
        }
        ExecutionStatus status = execution.status();
        if (status == ExecutionStatus.RUNNING || status == ExecutionStatus.PENDING_REDRIVE) {
            return new Holder(Status.RUNNING, null, execution.input());
        }
        if (status != ExecutionStatus.SUCCEEDED) {
            return new Holder(Status.FAILED, execution.stopDate(), execution.input());
        }
        boolean continued = ExpiryWorkflow.outcomeOf(execution.output()).filter(ExpiryWorkflow.OUTCOME_CONTINUED::equals).isPresent();
        return new Holder(continued ? Status.CONTINUED : Status.CLOSED, execution.stopDate());
    }

    /**
     * Lists each unfinished status in turn, newest first by start date, every page (a failed execution
     * may have started long before it failed, so no page can be skipped), and describes each one that
     * stopped since {@code since} for its input.
     */
    @Override
    public List<Ended> endedUnfinishedSince(Instant since) {
        List<Ended> ended = new ArrayList<>();
        for (ExecutionStatus status : List.of(ExecutionStatus.FAILED, ExecutionStatus.TIMED_OUT, ExecutionStatus.ABORTED)) {
            try {
                for (ExecutionListItem item : sfn.listExecutionsPaginator(r -> r.stateMachineArn(settings.stateMachineArn())
                        .statusFilter(status)).executions()) {
                    if (item.stopDate() != null && !item.stopDate().isBefore(since)) {
                        String input = sfn.describeExecution(r -> r.executionArn(item.executionArn())).input();
                        ended.add(new Ended(item.name(), input, item.stopDate()));
                    }
                }
            } catch (SdkServiceException e) {
                throw throttledOr(e, "ListExecutions");
            }
        }
        return ended;
    }

    @Override
    public StopResult stop(String name) {
        try {
            sfn.stopExecution(r -> r.executionArn(settings.executionArn(name))
                    .error(ExpiryWorkflow.ERROR_STALE)
                    .cause("The item's TTL changed or the item was deleted"));
            return StopResult.STOPPED;
        } catch (ExecutionDoesNotExistException e) {
            return StopResult.NOT_FOUND;
        } catch (SdkServiceException e) {
            throw throttledOr(e, "StopExecution");
        }
    }

    /** The core's {@link ThrottledException} for the service's throttling errors, the error itself otherwise. */
    private static RuntimeException throttledOr(SdkServiceException e, String action) {
        return e.isThrottlingException() ? new ThrottledException(action, e) : e;
    }


    @Override
    public void close() {
        sfn.close();
    }
}
