package dev.punctual.testing;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** An HTTP server on a free loopback port, standing in for an AWS endpoint or a presigned URL in a test. */
public final class LoopbackServer implements AutoCloseable {

    private final HttpServer server;

    private LoopbackServer(HttpServer server) {
        this.server = server;
    }

    /** Serves every path with {@code handler} until closed. */
    public static LoopbackServer start(HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", handler);
        server.start();
        return new LoopbackServer(server);
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
