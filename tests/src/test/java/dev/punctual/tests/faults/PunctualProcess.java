package dev.punctual.tests.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar punctual.jar local ...} as a separate process: its endpoints are parsed from what
 * it prints, and it can be killed without warning ({@code destroyForcibly}, SIGKILL on Unix).
 */
final class PunctualProcess implements AutoCloseable {

    private static final Pattern DYNAMODB = Pattern.compile("^DynamoDB Local\\s+(http://\\S+)");
    private static final Pattern STEP_FUNCTIONS = Pattern.compile("^Step Functions API\\s+(http://\\S+)");
    private static final String READY = "Punctual local runtime ready.";
    /** How long a start may take to say it is ready (or to end) before the test gives up on it: a hang guard. */
    private static final Duration HANG_GUARD = Duration.ofMinutes(5);

    private final Process process;
    private final URI dynamoDb;
    private final URI stepFunctions;
    private final List<String> output;

    private PunctualProcess(Process process, URI dynamoDb, URI stepFunctions, List<String> output) {
        this.process = process;
        this.dynamoDb = dynamoDb;
        this.stepFunctions = stepFunctions;
        this.output = output;
    }

    /** Starts {@code punctual local} on free ports, with {@code dataDirectory} (or in memory for null); waits until ready. */
    static PunctualProcess start(Path dataDirectory, String... moreArguments) throws IOException {
        String jar = System.getProperty("punctual.jar");
        if (jar == null) {
            throw new IllegalStateException("system property punctual.jar is not set; run through Maven (surefire sets it)");
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-jar", jar, "local", "--dynamodb-port", "0", "--sfn-port", "0",
                "--console-port", "0", "--events-port", "0"));
        if (dataDirectory != null) {
            command.addAll(List.of("--data-dir", dataDirectory.toString()));
        }
        command.addAll(List.of(moreArguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> output = java.util.Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<URI[]> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> read(process, output, ready), "punctual-process-output");
        reader.setDaemon(true);
        reader.start();
        try {
            // Ready, or ended: whichever comes first. A loaded machine can take a minute and more to start the JVM
            // and replay a journal; the bound only keeps a hung process from hanging the build.
            URI[] endpoints = ready.get(HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
            return new PunctualProcess(process, endpoints[0], endpoints[1], output);
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IllegalStateException("punctual local did not get ready: " + e + "; output:\n" + String.join("\n", output), e);
        }
    }

    private static void read(Process process, List<String> output, CompletableFuture<URI[]> ready) {
        URI dynamoDb = null;
        URI stepFunctions = null;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                output.add(line);
                Matcher d = DYNAMODB.matcher(line);
                Matcher s = STEP_FUNCTIONS.matcher(line);
                if (d.find()) {
                    dynamoDb = URI.create(d.group(1));
                } else if (s.find()) {
                    stepFunctions = URI.create(s.group(1));
                } else if (line.startsWith(READY) && dynamoDb != null && stepFunctions != null) {
                    ready.complete(new URI[] {dynamoDb, stepFunctions});
                }
            }
            ready.completeExceptionally(new IllegalStateException("the process ended (exit " + process.waitFor() + ")"));
        } catch (IOException e) {
            ready.completeExceptionally(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ready.completeExceptionally(e);
        }
    }

    URI dynamoDbEndpoint() {
        return dynamoDb;
    }

    URI stepFunctionsEndpoint() {
        return stepFunctions;
    }

    /** What it printed so far (stdout and stderr). */
    String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("punctual local did not die within 10 s of SIGKILL");
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(Duration.ofSeconds(15).toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
