package dev.punctual.local.http;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One HTTP endpoint of the local runtime: the JDK's server bound to a loopback address, running its
 * requests on a bounded pool of daemon threads of its own. When the pool and its queue are full, the
 * accepting thread runs the request itself, which slows accepting down instead of dropping requests.
 * The Step Functions API, the EventBridge endpoint and the console each run on one.
 */
public final class LoopbackHttpServer implements AutoCloseable {

    /** Requests that may wait for a worker before the accepting thread runs them itself. */
    private static final int QUEUE = 1024;

    private final HttpServer server;
    private final ThreadPoolExecutor workers;

    private LoopbackHttpServer(HttpServer server, ThreadPoolExecutor workers) {
        this.server = server;
        this.workers = workers;
    }

    /**
     * Serves {@code handler} on {@code address} (port 0 picks a free one).
     *
     * @param endpoint names the endpoint in the thread names and in the error when the address cannot be bound
     * @param threads how many requests run at once
     * @param backlog connections the socket may hold before they are accepted
     * @throws IllegalArgumentException if {@code address} is not a loopback address: nothing local listens beyond it
     */
    public static LoopbackHttpServer start(String endpoint, InetSocketAddress address, int threads, int backlog,
            HttpHandler handler) {
        if (address.getAddress() == null || !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("The " + endpoint + " binds a loopback address only, not " + address.getHostString());
        }
        // Without TCP_NODELAY the JDK server's separate header and body writes meet the client's delayed
        // ACK and every response waits ~40 ms. The JDK reads it once, when the first server is made.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        AtomicInteger created = new AtomicInteger();
        ThreadPoolExecutor workers = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE), runnable -> {
                    Thread thread = new Thread(runnable, endpoint.replace(' ', '-') + "-http-" + created.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }, new ThreadPoolExecutor.CallerRunsPolicy());
        try {
            HttpServer server = HttpServer.create(address, backlog);
            server.createContext("/", handler);
            server.setExecutor(workers);
            server.start();
            return new LoopbackHttpServer(server, workers);
        } catch (IOException e) {
            workers.shutdown();
            throw new UncheckedIOException("Could not bind the " + endpoint + " to " + address.getHostString() + ":" + address.getPort(), e);
        }
    }

    /** The port it listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Stops accepting, ends the exchanges in progress and stops the workers. */
    @Override
    public void close() {
        server.stop(0);
        workers.shutdownNow();
    }
}
