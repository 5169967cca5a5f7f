package dev.punctual.local.stepfunctions.api;

import com.sun.net.httpserver.HttpExchange;
import dev.punctual.local.http.LoopbackHttpServer;
import dev.punctual.local.stepfunctions.executions.ErrorCode;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.stepfunctions.quotas.Throttles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.UUID;

/**
 * The Step Functions API over HTTP (AWS JSON 1.0: {@code POST /} with
 * {@code X-Amz-Target: AWSStepFunctions.<Action>}), for the AWS SDKs and CLI pointed at
 * {@code http://127.0.0.1:<port>}. Signatures are not checked. Requests run on the bounded worker
 * pool of a {@link LoopbackHttpServer}.
 */
public final class StepFunctionsServer implements AutoCloseable {

    /** Larger request bodies are refused with a ValidationException. */
    public static final int MAX_REQUEST_BYTES = 1024 * 1024;

    private static final System.Logger LOG = System.getLogger(StepFunctionsServer.class.getName());
    private static final String CONTENT_TYPE = "application/x-amz-json-1.0";
    private static final int WORKERS = 16;

    private final LoopbackHttpServer server;

    private StepFunctionsServer(LoopbackHttpServer server) {
        this.server = server;
    }

    /** Serves {@code engine} on {@code address} (port 0 picks a free one), unthrottled. */
    public static StepFunctionsServer start(StepFunctionsEngine engine, InetSocketAddress address) {
        return start(engine, Throttles.none(), address);
    }

    /** Serves {@code engine} on {@code address} behind {@code throttles} (shared with the in-process transport). */
    public static StepFunctionsServer start(StepFunctionsEngine engine, Throttles throttles,
            InetSocketAddress address) {
        StepFunctionsApi api = new StepFunctionsApi(engine, throttles);
        return new StepFunctionsServer(LoopbackHttpServer.start("Step Functions API", address, WORKERS, 256,
                exchange -> serve(api, exchange)));
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }

    private static void serve(StepFunctionsApi api, HttpExchange exchange) {
        try (exchange) {
            StepFunctionsApi.Response response;
            byte[] body = readBody(exchange.getRequestBody());
            if (!"POST".equals(exchange.getRequestMethod())) {
                response = StepFunctionsApi.error(ErrorCode.UNKNOWN_OPERATION, "Only POST is supported, not "
                        + exchange.getRequestMethod());
            } else if (body == null) {
                response = StepFunctionsApi.error(ErrorCode.VALIDATION, "The request body is larger than "
                        + MAX_REQUEST_BYTES + " bytes");
            } else {
                response = api.handle(exchange.getRequestHeaders().getFirst("X-Amz-Target"), body);
            }
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            exchange.getResponseHeaders().set("x-amzn-RequestId", UUID.randomUUID().toString());
            if (response.errorType() != null) {
                exchange.getResponseHeaders().set("X-Amzn-ErrorType", response.errorType());
            }
            exchange.sendResponseHeaders(response.status(), response.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(response.body());
            }
        } catch (IOException | RuntimeException e) {
            // The client went away or the exchange broke mid-response; nothing is left to answer.
            LOG.log(System.Logger.Level.WARNING, "Step Functions API request failed: " + e);
        }
    }

    /** The body, or {@code null} when it is too large (the rest is read and dropped to keep the connection sane). */
    private static byte[] readBody(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_REQUEST_BYTES + 1);
        if (body.length <= MAX_REQUEST_BYTES) {
            return body;
        }
        in.transferTo(OutputStream.nullOutputStream());
        return null;
    }
}
