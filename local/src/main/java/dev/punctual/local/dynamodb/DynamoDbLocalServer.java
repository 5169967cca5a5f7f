package dev.punctual.local.dynamodb;

import com.amazonaws.services.dynamodbv2.local.server.LocalDynamoDBRequestHandler;
import com.amazonaws.services.dynamodbv2.local.server.LocalDynamoDBServerHandler;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * DynamoDB Local (com.amazonaws:DynamoDBLocal) running in this process and served over HTTP on the
 * loopback interface only, so applications, the SDK and the AWS CLI on this machine can use it and
 * nothing else on the network can.
 *
 * <p>DynamoDB Local's own {@code ServerRunner}/{@code DynamoDBProxyServer} builds a Jetty
 * {@code Server(port)}, whose connector listens on every interface, offers no host option, swallows
 * bind errors (it prints them and returns normally) and sends start-up telemetry. This class instead
 * builds the Jetty server itself around DynamoDB Local's request handler, with one connector whose
 * host is {@code 127.0.0.1}.
 *
 * <p>One shared database serves every access key and region ({@code -sharedDb}), so the AWS CLI with
 * whatever credentials it finds sees the same tables as the runtime. Without a data directory the
 * database lives in memory; with one it is the file {@code shared-local-instance.db} there and tables
 * survive restarts. DynamoDB Local's emulation of native TTL never runs ({@link WithoutNativeTtl}).
 */
public final class DynamoDbLocalServer implements AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";

    private final Server jetty;
    private final LocalDynamoDBServerHandler handler;
    private final InProcessDynamoDb inProcess;
    private final int port;
    private final Duration startTime;

    private DynamoDbLocalServer(Server jetty, LocalDynamoDBServerHandler handler, InProcessDynamoDb inProcess,
            int port, Duration startTime) {
        this.jetty = jetty;
        this.handler = handler;
        this.inProcess = inProcess;
        this.port = port;
        this.startTime = startTime;
    }

    /**
     * Where to listen and where to keep data.
     *
     * @param port          TCP port on 127.0.0.1; 0 picks a free one
     * @param dataDirectory directory for the database file, or {@code null} to keep everything in memory
     */
    public record Options(int port, Path dataDirectory) {

        public Options {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("DynamoDB Local port must be 0-65535, got " + port);
            }
        }

        /** In memory on a free port: for tests and probes. */
        public static Options inMemoryOnFreePort() {
            return new Options(0, null);
        }
    }

    /** Starts DynamoDB Local; returns once it accepts connections. */
    public static DynamoDbLocalServer start(Options options) {
        long started = System.nanoTime();
        Path directory = options.dataDirectory();
        if (directory != null) {
            prepareDataDirectory(directory);
        }
        LocalDynamoDBRequestHandler requests = createRequestHandler(directory);
        WithoutNativeTtl.open(requests, directory);
        LocalDynamoDBServerHandler handler = new LocalDynamoDBServerHandler(requests, null);
        InProcessDynamoDb inProcess;
        try {
            inProcess = InProcessDynamoDb.over(requests);
        } catch (RuntimeException e) {
            handler.close();
            throw e;
        }
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("dynamodb-local");
        threads.setDaemon(true);
        Server jetty = new Server(threads);
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost(LOOPBACK);
        connector.setPort(options.port());
        jetty.addConnector(connector);
        jetty.setHandler(new ContextHandler(handler, "/"));
        try {
            jetty.start();
        } catch (Exception e) {
            stopQuietly(jetty, handler, e);
            if (hasCause(e, BindException.class)) {
                throw new DynamoDbLocalStartException("port " + options.port() + " is in use; pass --dynamodb-port"
                        + " with a free port (or 0 to pick one)", e);
            }
            throw new DynamoDbLocalStartException("DynamoDB Local did not start on " + LOOPBACK + ":"
                    + options.port() + ": " + e.getMessage(), e);
        }
        return new DynamoDbLocalServer(jetty, handler, inProcess, connector.getLocalPort(),
                Duration.ofNanos(System.nanoTime() - started));
    }

    private static LocalDynamoDBRequestHandler createRequestHandler(Path directory) {
        try {
            // (authority level 0, inMemory, dbPath, sharedDb, delayTransientStatuses) as ServerRunner passes them.
            return new LocalDynamoDBRequestHandler(
                    0, directory == null, directory == null ? null : directory.toString(), true, false);
        } catch (RuntimeException e) {
            throw new DynamoDbLocalStartException("DynamoDB Local could not open its database"
                    + (directory == null ? " in memory" : " in " + directory) + ": " + e.getMessage(), e);
        }
    }

    private static void prepareDataDirectory(Path directory) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new DynamoDbLocalStartException("cannot create data directory " + directory
                    + " (" + e + "); pass a directory you can write to", e);
        }
        if (!Files.isDirectory(directory)) {
            throw new DynamoDbLocalStartException("data directory " + directory + " is not a directory");
        }
        if (!Files.isReadable(directory) || !Files.isWritable(directory)) {
            throw new DynamoDbLocalStartException("data directory " + directory
                    + " is not readable and writable; fix its permissions or pass another directory");
        }
    }

    private static boolean hasCause(Throwable error, Class<? extends Throwable> type) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static void stopQuietly(Server jetty, LocalDynamoDBServerHandler handler, Exception failure) {
        try {
            jetty.stop();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
        handler.close();
    }

    /** The HTTP endpoint to give SDK clients and {@code aws --endpoint-url}. */
    public URI endpoint() {
        return URI.create("http://" + LOOPBACK + ":" + port);
    }

    /**
     * Clients on the same database that skip HTTP, for the runtime's own traffic. Do not close
     * them; {@link #close} does.
     */
    public InProcessDynamoDb inProcess() {
        return inProcess;
    }

    /** The bound port (the chosen one when started with port 0). */
    public int port() {
        return port;
    }

    /** The address the listening socket is bound to: always the loopback address. */
    public InetAddress boundAddress() {
        ServerConnector connector = (ServerConnector) jetty.getConnectors()[0];
        if (connector.getTransport() instanceof ServerSocketChannel channel) {
            try {
                return ((InetSocketAddress) channel.getLocalAddress()).getAddress();
            } catch (IOException e) {
                throw new IllegalStateException("cannot read the DynamoDB Local socket address", e);
            }
        }
        throw new IllegalStateException("DynamoDB Local is not listening");
    }

    /** How long {@link #start} took, for the start-up figure. */
    public Duration startTime() {
        return startTime;
    }

    /** Stops serving and closes the database (an in-memory one is gone afterwards). */
    @Override
    public void close() {
        Exception failure = null;
        try {
            jetty.stop();
        } catch (Exception e) {
            failure = e;
        }
        handler.close();
        if (failure != null) {
            throw new IllegalStateException("DynamoDB Local did not stop cleanly: " + failure.getMessage(), failure);
        }
    }
}
