package dev.punctual.local.stepfunctions.executions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The compact binary form of history events. A million idle executions each hold a few events, so
 * events are kept as bytes rather than Jackson trees, type and field names are one-byte codes, and a
 * payload equal to the execution's input (the usual case: a Choice or Wait passes its input on) is
 * stored as a reference to it rather than a copy.
 *
 * <p>Event: {@code [type][timestamp millis][field count]} then per field
 * {@code [name][kind][value]}, where kind is text, a reference to the execution input, or JSON.
 */
final class HistoryCodec {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static final List<String> TYPES = List.of(
            "ExecutionStarted", "ExecutionSucceeded", "ExecutionFailed", "ExecutionAborted", "ExecutionTimedOut",
            "PassStateEntered", "PassStateExited", "ChoiceStateEntered", "ChoiceStateExited",
            "WaitStateEntered", "WaitStateExited", "TaskStateEntered", "TaskStateExited",
            "TaskScheduled", "TaskStarted", "TaskSubmitted", "TaskSucceeded", "TaskFailed", "TaskTimedOut",
            "SucceedStateEntered", "SucceedStateExited", "FailStateEntered",
            "ParallelStateEntered", "ParallelStateExited", "ParallelStateStarted", "ParallelStateSucceeded",
            "ParallelStateFailed", "ParallelStateAborted",
            "MapStateEntered", "MapStateExited", "MapStateStarted", "MapStateSucceeded", "MapStateFailed",
            "MapStateAborted", "MapIterationStarted", "MapIterationSucceeded", "MapIterationFailed",
            "MapIterationAborted", "LambdaFunctionScheduled", "LambdaFunctionStarted",
            "LambdaFunctionSucceeded", "LambdaFunctionFailed", "LambdaFunctionTimedOut");
    private static final List<String> FIELDS = List.of(
            "name", "input", "output", "resource", "resourceType", "region", "parameters", "error", "cause",
            "roleArn", "timeoutInSeconds", "heartbeatInSeconds", "index", "length");
    private static final Map<String, Integer> TYPE_CODES = codes(TYPES);
    private static final Map<String, Integer> FIELD_CODES = codes(FIELDS);
    private static final int LITERAL = 0xFF;
    private static final int KIND_TEXT = 0;
    private static final int KIND_INPUT = 1;
    private static final int KIND_JSON = 2;

    private HistoryCodec() {
    }

    static byte[] encode(String type, long timestampMillis, ObjectNode details, byte[] executionInput) {
        BinaryWriter out = new BinaryWriter(64);
        writeName(out, TYPE_CODES, type);
        out.writeLong(timestampMillis);
        out.writeVarInt(details == null ? 0 : details.size());
        if (details != null) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = details.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                writeName(out, FIELD_CODES, field.getKey());
                JsonNode value = field.getValue();
                if (value.isTextual()) {
                    byte[] text = value.textValue().getBytes(StandardCharsets.UTF_8);
                    if (executionInput != null && Arrays.equals(text, executionInput)) {
                        out.writeByte(KIND_INPUT);
                    } else {
                        out.writeByte(KIND_TEXT).writeBytes(text);
                    }
                } else {
                    out.writeByte(KIND_JSON).writeString(value.toString());
                }
            }
        }
        return out.toByteArray();
    }

    /** Decodes every event of a history blob; ids are positions, each event following the one before. */
    static List<HistoryEvent> decodeAll(byte[] blob, int length, byte[] executionInput) {
        List<HistoryEvent> events = new ArrayList<>();
        BinaryReader in = new BinaryReader(blob, 0, length);
        while (in.hasMore()) {
            long id = events.size() + 1L;
            events.add(decode(in, id, executionInput));
        }
        return events;
    }

    private static HistoryEvent decode(BinaryReader in, long id, byte[] executionInput) {
        String type = readName(in, TYPES);
        long timestamp = in.readLong();
        int count = in.readVarInt();
        ObjectNode details = JsonNodeFactory.instance.objectNode();
        for (int i = 0; i < count; i++) {
            String name = readName(in, FIELDS);
            int kind = in.readByte();
            switch (kind) {
                case KIND_TEXT -> details.put(name, in.readString());
                case KIND_INPUT -> details.put(name, new String(executionInput, StandardCharsets.UTF_8));
                case KIND_JSON -> details.set(name, parse(in.readString()));
                default -> throw new IllegalStateException("Unknown history field kind " + kind);
            }
        }
        return new HistoryEvent(id, id - 1, type, Instant.ofEpochMilli(timestamp), details);
    }

    private static void writeName(BinaryWriter out, Map<String, Integer> codes, String name) {
        Integer code = codes.get(name);
        if (code == null) {
            out.writeByte(LITERAL).writeString(name);
        } else {
            out.writeByte(code);
        }
    }

    private static String readName(BinaryReader in, List<String> names) {
        int code = in.readByte();
        return code == LITERAL ? in.readString() : names.get(code);
    }

    private static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("Corrupt history event field: " + e.getMessage(), e);
        }
    }

    private static Map<String, Integer> codes(List<String> names) {
        Map<String, Integer> codes = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            codes.put(names.get(i), i);
        }
        return Map.copyOf(codes);
    }
}
