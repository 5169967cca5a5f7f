package dev.punctual.local.stream;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.local.retention.RetainedLog;
import dev.punctual.local.retention.Retention;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The local on-failure destination: records the poller gave up on, kept with the message AWS would
 * send to an SQS or SNS destination and with the records themselves, so they can be listed and
 * redriven (handed to the function again).
 *
 * <p>With a data directory the store is the append-only JSON-lines file {@value #FILE_NAME}: one line
 * per dead letter, and one more line each time a redrive succeeds; without one it is kept in memory.
 *
 * <p>Only the newest are kept, within a count and an age ({@code --retain dead-letters}; by default
 * SQS's own four days): the file is rewritten with the kept ones at start and whenever it holds twice
 * the count in lines.
 */
public final class DeadLetters {

    /** File name in the data directory. */
    public static final String FILE_NAME = "stream-dead-letters.jsonl";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The message's {@code timestamp} as AWS writes it, milliseconds always: {@code 2022-07-13T13:48:01.000Z}. */
    private static final DateTimeFormatter MESSAGE_TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final Path file;
    private final Function<DeadLetter, RequestHandler<DynamodbEvent, StreamsEventResponse>> handlers;
    /** The label of the mode this runtime handles records in, filed with each dead letter; null when only reading. */
    private final String filingMode;
    private final Clock clock;
    private final String region;
    private final Map<String, DeadLetter> letters = new LinkedHashMap<>();
    /** The ids of {@link #letters} by when they were filed; forgetting one removes its letter. */
    private final RetainedLog<String> filed;
    private int linesInFile;

    DeadLetters(Path directory, Function<DeadLetter, RequestHandler<DynamodbEvent, StreamsEventResponse>> handlers,
                String filingMode, Clock clock, String region, Retention retention) {
        this.file = directory == null ? null : directory.resolve(FILE_NAME);
        this.handlers = handlers;
        this.filingMode = filingMode;
        this.clock = clock;
        this.region = region;
        this.filed = new RetainedLog<>(retention, letters::remove);
        if (file != null) {
            load();
            filed.trim(clock.instant());
            if (linesInFile > letters.size() + redrivenCount()) {
                rewrite();
            }
        }
    }

    /**
     * Opens the dead letters of a data directory (or an empty in-memory store for {@code null}) without a
     * running poller, e.g. for a {@code dlq} command; a redrive hands a dead letter's records to the
     * function {@code handlerFactory} gives for it (for its table, in the mode it was handled in), built
     * once per table and mode. It forgets none of them: the runtime that filed them applies its own bounds.
     */
    public static DeadLetters open(Path dataDirectory,
                                   Function<DeadLetter, RequestHandler<DynamodbEvent, StreamsEventResponse>> handlerFactory,
                                   Clock clock, String region) {
        Map<HandledAs, RequestHandler<DynamodbEvent, StreamsEventResponse>> built = new ConcurrentHashMap<>();
        return new DeadLetters(dataDirectory,
                letter -> built.computeIfAbsent(new HandledAs(letter.table(), letter.mode()), key -> handlerFactory.apply(letter)),
                null, clock, region, Retention.EVERYTHING);
    }

    /** A table and the mode its records were handled in: one redriving function each. */
    private record HandledAs(WatchedTable table, String mode) {
    }

    /** Every dead letter kept, oldest first, redriven ones included. */
    public synchronized List<DeadLetter> list() {
        filed.trim(clock.instant());
        return List.copyOf(letters.values());
    }

    /** One dead letter by ID, if it is still kept. */
    public synchronized Optional<DeadLetter> find(String id) {
        filed.trim(clock.instant());
        return Optional.ofNullable(letters.get(id));
    }

    /** Dead letters no longer kept, by count or by age, since the store was opened. */
    public synchronized long forgotten() {
        filed.trim(clock.instant());
        return filed.forgotten();
    }

    /**
     * Invokes the table's function again with the dead letter's records, in one batch, and marks the
     * dead letter redriven if the function succeeded for all of them. A dead letter already redriven
     * can be redriven again (the function is idempotent).
     */
    public RedriveResult redrive(String id) {
        DeadLetter letter = find(id).orElseThrow(() -> new IllegalArgumentException(
                "no dead letter with id '" + id + "'; list them to see their ids"));
        Invocation.Outcome outcome = Invocation.invoke(handlers.apply(letter), letter.records(),
                letter.table().tableName(), region, clock);
        if (outcome instanceof Invocation.Succeeded) {
            markRedriven(id, clock.instant());
            return new RedriveResult(id, true, List.of(), null);
        }
        if (outcome instanceof Invocation.FailedFrom partial) {
            return new RedriveResult(id, false, partial.reported(), null);
        }
        return new RedriveResult(id, false, List.of(), ((Invocation.FailedWhole) outcome).reason());
    }

    /** Files a dead letter; returns it. */
    DeadLetter add(WatchedTable table, String shardId, String condition, int invokeCount, String functionError,
                   List<DynamodbStreamRecord> records) {
        Instant now = clock.instant();
        ObjectNode message = onFailureMessage(table, shardId, condition, invokeCount, functionError, records, now);
        DeadLetter letter = new DeadLetter(UUID.randomUUID().toString(), table, filingMode, message, records, null);
        synchronized (this) {
            if (file != null) {
                if (linesInFile >= 2 * filed.retention().count()) {
                    rewrite();
                }
                append(deadLetterLine(letter));
            }
            letters.put(letter.id(), letter);
            filed.add(letter.id(), now);
        }
        return letter;
    }

    private static ObjectNode deadLetterLine(DeadLetter letter) {
        ObjectNode line = JSON.createObjectNode();
        line.put("type", "deadLetter");
        line.put("id", letter.id());
        line.set("table", tableJson(letter.table()));
        if (letter.mode() != null) {
            line.put("mode", letter.mode());
        }
        line.set("message", letter.message());
        ArrayNode recordsJson = line.putArray("records");
        letter.records().forEach(record -> recordsJson.add(LambdaRecordJson.toJson(record)));
        return line;
    }

    private static ObjectNode redrivenLine(String id, Instant at) {
        ObjectNode line = JSON.createObjectNode();
        line.put("type", "redriven");
        line.put("id", id);
        line.put("at", at.toString());
        return line;
    }

    private int redrivenCount() {
        return (int) letters.values().stream().filter(letter -> letter.redrivenAt() != null).count();
    }

    /** Replaces the file with the letters kept: written aside, then moved over it. */
    private void rewrite() {
        Path aside = file.resolveSibling(FILE_NAME + ".tmp");
        StringBuilder text = new StringBuilder();
        try {
            for (DeadLetter letter : letters.values()) {
                text.append(JSON.writeValueAsString(deadLetterLine(letter))).append('\n');
                if (letter.redrivenAt() != null) {
                    text.append(JSON.writeValueAsString(redrivenLine(letter.id(), letter.redrivenAt()))).append('\n');
                }
            }
            Files.write(aside, text.toString().getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
            Files.move(aside, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rewrite the dead-letter file " + file
                    + "; check the data directory is writable", e);
        }
        linesInFile = letters.size() + redrivenCount();
    }

    private synchronized void markRedriven(String id, Instant at) {
        DeadLetter letter = letters.get(id);
        if (letter == null) {
            // Forgotten while it was being redriven: nothing is left to mark.
            return;
        }
        if (file != null) {
            append(redrivenLine(id, at));
        }
        letters.put(id, letter.redrivenAt(at));
    }

    private ObjectNode onFailureMessage(WatchedTable table, String shardId, String condition, int invokeCount,
                                        String functionError, List<DynamodbStreamRecord> records, Instant now) {
        ObjectNode message = JSON.createObjectNode();
        ObjectNode requestContext = message.putObject("requestContext");
        requestContext.put("requestId", UUID.randomUUID().toString());
        requestContext.put("functionArn", LocalLambdaContext.functionArn(table.tableName(), region));
        requestContext.put("condition", condition);
        requestContext.put("approximateInvokeCount", invokeCount);
        if (invokeCount > 0) {
            ObjectNode responseContext = message.putObject("responseContext");
            responseContext.put("statusCode", 200);
            responseContext.put("executedVersion", "$LATEST");
            // Present, null, when the function returned normally (AWS's messages: "functionError": null).
            responseContext.put("functionError", functionError);
        }
        message.put("version", "1.0");
        message.put("timestamp", MESSAGE_TIMESTAMP.format(now));
        ObjectNode batch = message.putObject("DDBStreamBatchInfo");
        batch.put("shardId", shardId);
        batch.put("startSequenceNumber", records.get(0).getDynamodb().getSequenceNumber());
        batch.put("endSequenceNumber", records.get(records.size() - 1).getDynamodb().getSequenceNumber());
        batch.put("approximateArrivalOfFirstRecord", arrival(records.get(0)));
        batch.put("approximateArrivalOfLastRecord", arrival(records.get(records.size() - 1)));
        batch.put("batchSize", records.size());
        batch.put("streamArn", table.eventSourceArn(region));
        return message;
    }

    /** When a loaded dead letter was filed: its message's timestamp, or now if it has none. */
    private Instant filedAt(ObjectNode message) {
        try {
            return Instant.parse(message.path("timestamp").asText());
        } catch (java.time.format.DateTimeParseException e) {
            return clock.instant();
        }
    }

    private static String arrival(DynamodbStreamRecord record) {
        return record.getDynamodb().getApproximateCreationDateTime().toInstant().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static ObjectNode tableJson(WatchedTable table) {
        ObjectNode json = JSON.createObjectNode();
        json.put("tableName", table.tableName());
        json.put("streamArn", table.streamArn());
        json.put("ttlAttribute", table.ttlAttribute());
        return json;
    }

    private void append(ObjectNode line) {
        try {
            // The data directory may be new (the runtime gives the poller its own sub-directory).
            Files.createDirectories(file.getParent());
            Files.write(file, (JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8),
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE,
                    StandardOpenOption.SYNC);
            linesInFile++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the dead-letter file " + file
                    + "; check the data directory is writable", e);
        }
    }

    private void load() {
        if (!Files.exists(file)) {
            return;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dead-letter file " + file, e);
        }
        int number = 0;
        linesInFile = lines.size();
        for (String text : lines) {
            number++;
            if (text.isBlank()) {
                continue;
            }
            JsonNode line;
            try {
                line = JSON.readTree(text);
            } catch (IOException e) {
                // A crash can leave a torn last line; the dead letter on it was never acknowledged as filed.
                if (number == lines.size()) {
                    break;
                }
                throw new IllegalStateException("dead-letter file " + file + " line " + number + " is not JSON", e);
            }
            String id = line.path("id").asText();
            if ("redriven".equals(line.path("type").asText())) {
                DeadLetter letter = letters.get(id);
                if (letter != null) {
                    letters.put(id, letter.redrivenAt(Instant.parse(line.path("at").asText())));
                }
                continue;
            }
            JsonNode table = line.path("table");
            List<DynamodbStreamRecord> records = new ArrayList<>();
            line.path("records").forEach(record -> records.add(LambdaRecordJson.fromJson(record)));
            ObjectNode message = (ObjectNode) line.path("message");
            letters.put(id, new DeadLetter(id,
                    new WatchedTable(table.path("tableName").asText(), table.path("streamArn").asText(),
                            table.path("ttlAttribute").asText()),
                    line.hasNonNull("mode") ? line.path("mode").asText() : null, message, records, null));
            filed.add(id, filedAt(message));
        }
    }
}
