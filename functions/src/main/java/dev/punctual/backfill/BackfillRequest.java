package dev.punctual.backfill;

import dev.punctual.statemachine.BackfillWorkflow;
import dev.punctual.statemachine.Contract;
import dev.punctual.statemachine.StreamWiring;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A backfill execution's input, checked: only {@link BackfillWorkflow#TABLE} is required, every other
 * field has a default. Anything wrong is a {@link BackfillInputException} naming the field.
 *
 * @param table the table to backfill
 * @param ttlAttribute its TTL attribute, if the input names one
 * @param segments parallel Scan segments for a new run
 * @param pageSize items per Scan page
 * @param startsPerSecond StartExecution calls per second, all segments together; {@code 0} for no limit
 * @param restart whether to abandon an unfinished run and start from the table's beginning
 */
public record BackfillRequest(String table, Optional<String> ttlAttribute, int segments, int pageSize,
        double startsPerSecond, boolean restart) {

    /** DynamoDB's table names: 3-255 characters of {@code [A-Za-z0-9_.-]}. */
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z0-9_.-]{3,255}");
    private static final Set<String> FIELDS = Set.of(BackfillWorkflow.TABLE, BackfillWorkflow.TTL_ATTRIBUTE,
            BackfillWorkflow.SEGMENTS, BackfillWorkflow.PAGE_SIZE, BackfillWorkflow.STARTS_PER_SECOND,
            BackfillWorkflow.RESTART, Contract.FIELD);

    public BackfillRequest {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(ttlAttribute, "ttlAttribute");
    }

    /**
     * Reads an execution's input.
     *
     * @throws BackfillInputException naming the field that is missing, unknown or out of range
     */
    public static BackfillRequest fromInput(Map<String, ?> input) {
        if (input == null) {
            throw new BackfillInputException("The backfill input must be a JSON object such as {\"table\": \"orders\"}");
        }
        try {
            Contract.BACKFILL_INPUT.checkPayload(input);
        } catch (Contract.UnsupportedContractException e) {
            throw new BackfillInputException(e.getMessage());
        }
        Set<String> unknown = new TreeSet<>(input.keySet());
        unknown.removeAll(FIELDS);
        if (!unknown.isEmpty()) {
            throw new BackfillInputException("Unknown backfill input field(s) " + unknown + "; known: " + new TreeSet<>(FIELDS));
        }
        Object table = input.get(BackfillWorkflow.TABLE);
        if (!(table instanceof String name) || !TABLE_NAME.matcher(name).matches()) {
            throw new BackfillInputException("The backfill input needs \"" + BackfillWorkflow.TABLE + "\": the name of the"
                    + " table to backfill (3-255 characters of A-Z a-z 0-9 _ . -), got " + describe(table));
        }
        Optional<String> ttlAttribute = Optional.ofNullable(input.get(BackfillWorkflow.TTL_ATTRIBUTE)).map(value -> {
            try {
                return StreamWiring.requireSafeAttributeName(value instanceof String text ? text : null);
            } catch (IllegalArgumentException e) {
                throw new BackfillInputException("\"" + BackfillWorkflow.TTL_ATTRIBUTE + "\": " + e.getMessage());
            }
        });
        int segments = (int) whole(input, BackfillWorkflow.SEGMENTS, BackfillWorkflow.DEFAULT_SEGMENTS, 1,
                BackfillWorkflow.MAX_SEGMENTS);
        int pageSize = (int) whole(input, BackfillWorkflow.PAGE_SIZE, BackfillWorkflow.DEFAULT_PAGE_SIZE, 1,
                BackfillWorkflow.MAX_PAGE_SIZE);
        double rate = rate(input.get(BackfillWorkflow.STARTS_PER_SECOND));
        Object restart = input.get(BackfillWorkflow.RESTART);
        if (restart != null && !(restart instanceof Boolean)) {
            throw new BackfillInputException("\"" + BackfillWorkflow.RESTART + "\" must be true or false, got " + describe(restart));
        }
        return new BackfillRequest(name, ttlAttribute, segments, pageSize, rate, Boolean.TRUE.equals(restart));
    }

    /** {@code input} as a successor gets it: the same, except that it never restarts the run again. */
    public static Map<String, Object> successorInput(Map<String, ?> input) {
        Map<String, Object> successor = new LinkedHashMap<>(input);
        successor.remove(BackfillWorkflow.RESTART);
        successor.put(Contract.FIELD, Contract.BACKFILL_INPUT.version());
        return successor;
    }

    private static long whole(Map<String, ?> input, String field, long defaultValue, long min, long max) {
        Object value = input.get(field);
        if (value == null) {
            return defaultValue;
        }
        if (value instanceof Number number && number.doubleValue() == Math.rint(number.doubleValue())
                && number.doubleValue() >= min && number.doubleValue() <= max) {
            return number.longValue();
        }
        throw new BackfillInputException("\"" + field + "\" must be a whole number from " + min + " to " + max + ", got "
                + describe(value));
    }

    private static double rate(Object value) {
        if (value == null) {
            return BackfillWorkflow.DEFAULT_STARTS_PER_SECOND;
        }
        if (value instanceof Number number && number.doubleValue() >= 0 && Double.isFinite(number.doubleValue())) {
            return number.doubleValue();
        }
        throw new BackfillInputException("\"" + BackfillWorkflow.STARTS_PER_SECOND + "\" must be a number of StartExecution"
                + " calls per second (0 for no limit), got " + describe(value));
    }

    private static String describe(Object value) {
        return value instanceof String text ? "\"" + text + "\"" : String.valueOf(value);
    }
}
