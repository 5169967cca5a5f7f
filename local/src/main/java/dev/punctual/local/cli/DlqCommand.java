package dev.punctual.local.cli;

import dev.punctual.functions.ExpiryStreamHandler;
import dev.punctual.functions.FunctionParts;
import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.runtime.LocalDefaults;
import dev.punctual.local.runtime.StreamFunctionEnvironment;
import dev.punctual.local.stream.DeadLetter;
import dev.punctual.local.stream.DeadLetters;
import dev.punctual.local.stream.RedriveResult;
import dev.punctual.statemachine.ExpiryMode;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code punctual dlq}: the stream poller's on-failure destination in a data directory. {@code list}
 * shows the batches the poller gave up on; {@code redrive} hands one batch to the real handler again,
 * which schedules its items on the given Step Functions endpoint.
 */
@Command(name = "dlq", mixinStandardHelpOptions = true,
        description = "List and redrive stream records the local poller gave up on (its dead letters).",
        subcommands = {DlqCommand.ListDeadLetters.class, DlqCommand.Redrive.class})
final class DlqCommand {

    /** Where {@code punctual local --data-dir D} keeps its dead letters. */
    static Path streamDirectory(CommandSpec spec, Path dataDirectory) {
        Path stream = dataDirectory.resolve("stream");
        if (!Files.isDirectory(dataDirectory)) {
            throw new ParameterException(spec.commandLine(), "--data-dir " + dataDirectory
                    + " does not exist; pass the directory `punctual local --data-dir` ran with");
        }
        return stream;
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Show dead letters: id, table, condition, batch size, sequence range, when, redriven.")
    static final class ListDeadLetters implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Option(names = "--data-dir", paramLabel = "DIR", required = true,
                description = "The data directory of `punctual local --data-dir`.")
        Path dataDirectory;

        @Override
        public Integer call() {
            DeadLetters letters = DeadLetters.open(streamDirectory(spec, dataDirectory), table -> {
                throw new IllegalStateException("listing never invokes the function");
            }, Clock.systemUTC(), LocalAccount.REGION);
            PrintWriter out = spec.commandLine().getOut();
            String format = "%-36s  %-20s  %-9s  %-22s  %7s  %-45s  %-24s  %s%n";
            out.printf(format, "ID", "TABLE", "MODE", "CONDITION", "RECORDS", "SEQUENCE RANGE", "AT", "REDRIVEN");
            List<DeadLetter> all = letters.list();
            for (DeadLetter letter : all) {
                var batch = letter.message().path("DDBStreamBatchInfo");
                out.printf(format, letter.id(), letter.table().tableName(), letter.handledInMode().orElse("-"), letter.condition(),
                        batch.path("batchSize").asInt(letter.records().size()),
                        batch.path("startSequenceNumber").asText() + ".." + batch.path("endSequenceNumber").asText(),
                        letter.timestamp(), letter.redriven().map(Object::toString).orElse("no"));
            }
            long open = all.stream().filter(letter -> letter.redriven().isEmpty()).count();
            out.printf("%d dead letter(s), %d not redriven%n", all.size(), open);
            out.flush();
            return 0;
        }
    }

    @Command(name = "redrive", mixinStandardHelpOptions = true,
            description = "Invoke the real handler again with a dead letter's records (all of them if no ID is given), "
                    + "in the mode the runtime handled them in (a dead letter filed before runtimes recorded it: per-item), "
                    + "with the environment the runtime gives its handler. Safe to repeat: work is named deterministically.")
    static final class Redrive implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Parameters(arity = "0..*", paramLabel = "ID", description = "Dead letters to redrive (default: every one not yet redriven).")
        List<String> ids = new ArrayList<>();

        @Option(names = "--data-dir", paramLabel = "DIR", required = true,
                description = "The data directory of `punctual local --data-dir`.")
        Path dataDirectory;

        @Option(names = "--sfn-endpoint", description = "Step Functions endpoint (default: ${DEFAULT-VALUE}).",
                defaultValue = "http://127.0.0.1:8083")
        URI endpoint;

        @Option(names = "--dynamodb-endpoint", description = "DynamoDB endpoint, for windowed mode's schedule index"
                + " (default: ${DEFAULT-VALUE}).", defaultValue = "http://127.0.0.1:8000")
        URI dynamoDbEndpoint;

        @Option(names = "--state-machine-arn",
                description = "State machine ARN (default: the local runtime's machine of the dead letter's mode).")
        String stateMachineArn;

        @Override
        public Integer call() throws Exception {
            List<ExpiryStreamHandler> handlers = new ArrayList<>();
            DeadLetters letters = DeadLetters.open(streamDirectory(spec, dataDirectory), letter -> {
                ExpiryMode mode = letter.handledInMode().map(ExpiryMode::fromLabel).orElse(ExpiryMode.PER_ITEM);
                String machine = stateMachineArn != null ? stateMachineArn : LocalDefaults.stateMachineArn(mode);
                // The runtime gives the handler the same environment (cancelling stale executions, its default).
                ExpiryStreamHandler handler = new ExpiryStreamHandler(FunctionParts.builder(StreamFunctionEnvironment.of(
                        mode, machine, letter.table(), endpoint, dynamoDbEndpoint, true)).build());
                handlers.add(handler);
                return handler;
            }, Clock.systemUTC(), LocalAccount.REGION);
            List<String> targets = ids.isEmpty()
                    ? letters.list().stream().filter(letter -> letter.redriven().isEmpty()).map(DeadLetter::id).toList()
                    : ids;
            PrintWriter out = spec.commandLine().getOut();
            int failures = 0;
            try {
                for (String id : targets) {
                    RedriveResult result = letters.redrive(id);
                    if (result.succeeded()) {
                        out.printf("%s  redriven%n", id);
                    } else {
                        failures++;
                        out.printf("%s  FAILED: %s%n", id, result.error() != null ? result.error()
                                : result.failedSequenceNumbers().size() + " record(s) reported failed again: "
                                        + String.join(", ", result.failedSequenceNumbers()));
                    }
                }
            } finally {
                for (ExpiryStreamHandler handler : handlers) {
                    handler.close();
                }
            }
            out.printf("%d redriven, %d failed%n", targets.size() - failures, failures);
            out.flush();
            return failures == 0 ? 0 : 3;
        }
    }
}
