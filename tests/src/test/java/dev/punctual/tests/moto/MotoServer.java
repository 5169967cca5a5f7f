package dev.punctual.tests.moto;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * moto's server as a child process, started through {@code tools/moto/punctual-moto.py} (the launcher the
 * docs give users) on a free loopback port it picks itself, so no other process can take the port between
 * choosing and binding it. Its output goes to a log file (moto logs requests' failures, never their data);
 * it stops when closed, and by itself when this JVM dies (its standard input closes).
 */
final class MotoServer implements AutoCloseable {

    /** moto imports a few hundred modules before it serves: seconds on a quiet machine, more beside a build. */
    private static final Duration READY = Duration.ofSeconds(90);

    private final Process process;
    private final URI endpoint;
    private final Path log;

    private MotoServer(Process process, URI endpoint, Path log) {
        this.process = process;
        this.endpoint = endpoint;
        this.log = log;
    }

    /** Starts moto and returns once it serves and executes state machines; its output goes to {@code log}. */
    static MotoServer start(Path log) {
        return start(log, List.of());
    }

    /** As {@link #start(Path)}, with more of the launcher's options (e.g. {@code --mock-config FILE}). */
    static MotoServer start(Path log, List<String> options) {
        String launcher = System.getProperty("punctual.moto");
        if (launcher == null) {
            throw new IllegalStateException("system property punctual.moto is not set; run through Maven (surefire sets it)");
        }
        Process process;
        try {
            Files.createDirectories(log.getParent());
            List<String> command = new ArrayList<>(List.of("python3", launcher, "--port", "0", "--exit-on-stdin-eof"));
            command.addAll(options);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start python3 " + launcher + ": moto 5.2.1 must be importable", e);
        }
        CompletableFuture<URI> ready = new CompletableFuture<>();
        Thread copier = new Thread(() -> copyOutput(process, log, ready), "moto-output");
        copier.setDaemon(true);
        copier.start();
        try {
            return new MotoServer(process, ready.get(READY.toSeconds(), TimeUnit.SECONDS), log);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("Interrupted while moto started", e);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("moto did not report READY within " + READY.toSeconds() + " s; its output is in "
                    + log, e);
        }
    }

    /** Copies the launcher's output to {@code log}, completing {@code ready} with the endpoint on its READY line. */
    private static void copyOutput(Process process, Path log, CompletableFuture<URI> ready) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             var out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = lines.readLine()) != null) {
                out.write(line);
                out.newLine();
                out.flush();
                if (line.startsWith("READY ")) {
                    ready.complete(URI.create(line.substring("READY ".length()).trim()));
                }
            }
            ready.completeExceptionally(new IllegalStateException("moto exited with " + process.waitFor()
                    + " before it was ready; its output is in " + log));
        } catch (IOException | InterruptedException e) {
            ready.completeExceptionally(e);
        }
    }

    /** The endpoint of every service moto serves (DynamoDB, its stream, Step Functions). */
    URI endpoint() {
        return endpoint;
    }

    /** Where moto's output goes. */
    Path log() {
        return log;
    }

    /** Stops moto: its standard input closes, then a TERM, then a KILL if it has not gone within ten seconds. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
