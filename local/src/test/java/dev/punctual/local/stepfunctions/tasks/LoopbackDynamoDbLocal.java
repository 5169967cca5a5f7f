package dev.punctual.local.stepfunctions.tasks;

import com.amazonaws.services.dynamodbv2.local.server.LocalDynamoDBRequestHandler;
import com.amazonaws.services.dynamodbv2.local.server.LocalDynamoDBServerHandler;
import java.net.URI;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * In-memory DynamoDB Local for tests, on 127.0.0.1 and a free port. {@code DynamoDBEmbedded} cannot be
 * used: its start-up telemetry needs SDK modules the build excludes; over HTTP the task resource also
 * meets real SDK responses (headers, request ids, error bodies). Unlike the runtime's
 * {@code DynamoDbLocalServer}, it is DynamoDB Local as shipped: its own TTL job runs.
 */
public final class LoopbackDynamoDbLocal implements AutoCloseable {

    private final Server jetty;
    private final LocalDynamoDBServerHandler handler;
    private final DynamoDbClient client;
    private final URI endpoint;

    public LoopbackDynamoDbLocal() throws Exception {
        handler = new LocalDynamoDBServerHandler(new LocalDynamoDBRequestHandler(0, true, null, true, false), null);
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setDaemon(true);
        jetty = new Server(threads);
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        jetty.setHandler(new ContextHandler(handler, "/"));
        jetty.start();
        endpoint = URI.create("http://127.0.0.1:" + connector.getLocalPort());
        client = DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(Apache5HttpClient.create())
                .build();
    }

    public DynamoDbClient client() {
        return client;
    }

    /** Its HTTP endpoint, for other clients (its streams, say). */
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public void close() {
        client.close();
        try {
            jetty.stop();
        } catch (Exception e) {
            throw new IllegalStateException("DynamoDB Local did not stop: " + e.getMessage(), e);
        } finally {
            handler.close();
        }
    }
}
