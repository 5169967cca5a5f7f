package dev.punctual.local.stepfunctions.api;

import dev.punctual.local.stepfunctions.executions.ErrorCode;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.quotas.Throttles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.UUID;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * An SDK HTTP client that hands each request to the Step Functions API in this process instead of
 * sending it over a socket: the request an {@code SfnClient} marshalled and signed goes to the same
 * {@link StepFunctionsApi} that {@link StepFunctionsServer} serves, and its AWS JSON 1.0 response
 * comes back to the SDK's unmarshallers and error handling unchanged.
 *
 * <p>The local runtime gives it to the stream handler's {@code SfnClient}: same client, same
 * configuration and retries as in Lambda, minus the loopback HTTP round trip, which dominated the CPU
 * profile of StartExecution on a 2-core machine. The AWS CLI and applications
 * use the HTTP endpoint.
 */
public final class InProcessTransport implements SdkHttpClient {

    private static final String CONTENT_TYPE = "application/x-amz-json-1.0";

    private final StepFunctionsApi api;

    /** A transport to {@code engine}, unthrottled. */
    public InProcessTransport(StepFunctionsEngine engine) {
        this(engine, Throttles.none());
    }

    /**
     * A transport to {@code engine} behind {@code throttles}: give it the same throttles as the HTTP
     * server, so the runtime's own handler is throttled exactly as an application is.
     */
    public InProcessTransport(StepFunctionsEngine engine, Throttles throttles) {
        this.api = new StepFunctionsApi(engine, throttles);
    }

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        return new ExecutableHttpRequest() {
            @Override
            public HttpExecuteResponse call() throws IOException {
                return execute(request);
            }

            @Override
            public void abort() {
                // Nothing is in flight outside the caller's own thread.
            }
        };
    }

    private HttpExecuteResponse execute(HttpExecuteRequest request) throws IOException {
        StepFunctionsApi.Response response;
        if (request.httpRequest().method() != SdkHttpMethod.POST) {
            response = StepFunctionsApi.error(ErrorCode.UNKNOWN_OPERATION, "Only POST is supported, not "
                    + request.httpRequest().method());
        } else {
            byte[] body = readBody(request);
            response = body == null
                    ? StepFunctionsApi.error(ErrorCode.VALIDATION, "The request body is larger than "
                            + StepFunctionsServer.MAX_REQUEST_BYTES + " bytes")
                    : api.handle(request.httpRequest().firstMatchingHeader("X-Amz-Target").orElse(null), body);
        }
        SdkHttpResponse.Builder head = SdkHttpResponse.builder()
                .statusCode(response.status())
                .putHeader("Content-Type", CONTENT_TYPE)
                .putHeader("Content-Length", Integer.toString(response.body().length))
                .putHeader("x-amzn-RequestId", UUID.randomUUID().toString());
        if (response.errorType() != null) {
            head.putHeader("X-Amzn-ErrorType", response.errorType());
        }
        return HttpExecuteResponse.builder()
                .response(head.build())
                .responseBody(AbortableInputStream.create(new ByteArrayInputStream(response.body())))
                .build();
    }

    /** The body, or {@code null} when it is over the API's limit. */
    private static byte[] readBody(HttpExecuteRequest request) throws IOException {
        if (request.contentStreamProvider().isEmpty()) {
            return new byte[0];
        }
        try (InputStream in = request.contentStreamProvider().get().newStream()) {
            byte[] body = in.readNBytes(StepFunctionsServer.MAX_REQUEST_BYTES + 1);
            return body.length <= StepFunctionsServer.MAX_REQUEST_BYTES ? body : null;
        }
    }

    @Override
    public String clientName() {
        return "punctual-in-process";
    }

    @Override
    public void close() {
        // The engine belongs to the runtime.
    }
}
