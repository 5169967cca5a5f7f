package dev.punctual.local.cli;

import dev.punctual.local.runtime.LocalRuntime;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The runtime's fault injection, for every command that starts it ({@code local}, {@code demo},
 * {@code bench}): DynamoDB errors on every DynamoDB call Punctual makes, and failures of the bucket
 * function's invocations. Each injected fault is logged on one line naming the error and the call
 * site, and counted per call site ({@code bench --json}: {@code "faults"}).
 */
final class FaultOptions {

    @Option(names = "--dynamodb-fault", paramLabel = "ERROR=FRACTION",
            description = "Fault injection: every DynamoDB call Punctual makes (the stream handler's, the bucket function's,"
                    + " the backfill function's, the state machines' DynamoDB tasks) fails with ERROR (ThrottlingException,"
                    + " ProvisionedThroughputExceededException, RequestLimitExceeded, InternalServerError, ServiceUnavailable,"
                    + " AccessDeniedException) with probability FRACTION, as it would reach the caller after the SDK's retries.")
    String dynamoDbFault;

    @Option(names = "--lambda-fault", paramLabel = "ERROR=FRACTION",
            description = "Fault injection, windowed mode: each invocation of the bucket function fails with ERROR"
                    + " (Lambda.ServiceException, Lambda.AWSLambdaException, Lambda.SdkClientException,"
                    + " Lambda.TooManyRequestsException: nothing ran; Lambda.Unknown: the function timed out, after doing its"
                    + " work, and the error comes when its 240 s timeout has passed) with probability FRACTION.")
    String lambdaFault;

    /** Configures {@code runtime}'s faults from the flags given; a malformed value is a usage error. */
    void apply(CommandSpec spec, LocalRuntime runtime) {
        try {
            if (dynamoDbFault != null) {
                runtime.faults().dynamoDb().parse(dynamoDbFault, System.nanoTime());
            }
            if (lambdaFault != null) {
                runtime.faults().lambda().parse(lambdaFault, System.nanoTime());
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** What the flags inject, for the start-up lines; empty when none. */
    String describe() {
        StringBuilder text = new StringBuilder();
        if (dynamoDbFault != null) {
            text.append("DynamoDB ").append(dynamoDbFault);
        }
        if (lambdaFault != null) {
            text.append(text.isEmpty() ? "" : ", ").append("bucket function ").append(lambdaFault);
        }
        return text.toString();
    }
}
