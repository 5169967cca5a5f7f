package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.punctual.local.stepfunctions.api.StepFunctionsServer;
import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.asl.run.ContextObject;
import dev.punctual.local.stepfunctions.asl.run.TaskResource;
import dev.punctual.local.time.ClockTimer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A durable engine in its own process, for {@link DurabilityProcessTest} to kill -9. Its one task
 * resource, {@code arn:aws:states:::lambda:invoke}, appends the execution name to {@code calls.log}
 * (fsynced) so the test can count side effects.
 *
 * <p>Arguments: data directory, calls log. Prints {@code READY <port>} once serving.
 */
public final class DurableEngineMain {

    private DurableEngineMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path data = Path.of(args[0]);
        Path calls = Path.of(args[1]);
        ExecutorService actions = Executors.newFixedThreadPool(2);
        ClockTimer timer = new ClockTimer(Clock.systemUTC(), actions, "timer");
        TaskResource record = new TaskResource() {
            @Override
            public boolean supports(String arn) {
                return arn.endsWith(":states:::lambda:invoke");
            }

            @Override
            public synchronized CompletionStage<JsonNode> invoke(String arn, JsonNode parameters,
                    ContextObject context) {
                try (FileChannel log = FileChannel.open(calls, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND)) {
                    log.write(java.nio.ByteBuffer.wrap((context.executionName() + "\n")
                            .getBytes(StandardCharsets.UTF_8)));
                    log.force(true);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return CompletableFuture.completedFuture(JsonNodeFactory.instance.objectNode().put("recorded", true));
            }
        };
        StepFunctionsEngine local = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, actions))
                .taskResources(List.of(record))
                .timer(timer)
                .dataDirectory(data)
                .journalSegmentBytes(64 * 1024)
                .build();
        StepFunctionsServer server = StepFunctionsServer.start(local, new InetSocketAddress("127.0.0.1", 0));
        System.out.println("READY " + server.port() + " resumed=" + local.recovery().executionsResumed());
        System.out.flush();
        Thread.currentThread().join();
    }
}
