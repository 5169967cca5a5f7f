package dev.punctual.windowed;

import dev.punctual.expiry.JsonText;
import dev.punctual.names.BucketExecutionName;
import dev.punctual.statemachine.BucketWorkflow;
import dev.punctual.statemachine.Contract;
import dev.punctual.statemachine.ExpiryWorkflow;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;

/**
 * The input of one {@code expire-bucket} execution, which the bucket function receives as its
 * payload. The same bucket always gets the same input unless it lies beyond one horizon, so a
 * repeated StartExecution finds the running execution (Step Functions' idempotency rule).
 *
 * @param wakeAt when the Wait ends: {@link Bucket#naturalWake()}, capped at one
 *     {@link ExpiryWorkflow#HORIZON} after the execution starts
 * @param hop one-year successors before this execution (0 for the first)
 * @param generation which generation of the bucket (at this hop) the execution is: 0 for the first,
 *     {@code n} for the successor that replaced generation {@code n - 1} after it ended unfinished
 *     ({@link BucketGenerations})
 * @param from a minute's runner works the seconds from this one (epoch seconds): the bucket's start,
 *     or for a minute planned for its first due second ({@link #planned}) the second after its wake;
 *     every generation keeps it, so what one placed with the minute the next one works too
 * @param until and before this one: the bucket's end, or for a minute's early part
 *     ({@link #early}) its main part's {@code from}
 */
public record BucketInput(Bucket bucket, String ttlAttribute, Instant wakeAt, int hop, int generation, long from,
        long until) {

    public BucketInput {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(ttlAttribute, "ttlAttribute");
        Objects.requireNonNull(wakeAt, "wakeAt");
        if (hop < 0) {
            throw new IllegalArgumentException("hop must not be negative, got " + hop);
        }
        if (generation < 0) {
            throw new IllegalArgumentException("generation must not be negative, got " + generation);
        }
        boolean whole = from == bucket.start() && until == bucket.end();
        if (!whole && (bucket.level() != BucketLevel.MINUTE || from < bucket.start() || until > bucket.end()
                || from >= until || from > bucket.start() && until < bucket.end())) {
            throw new IllegalArgumentException("a bucket's runner works its whole bucket, a minute's main part from a"
                    + " second of it to its end, or its early part from its start to a second of it; got " + from
                    + " to " + until + " of " + bucket);
        }
    }

    /** A whole bucket's generation. */
    public BucketInput(Bucket bucket, String ttlAttribute, Instant wakeAt, int hop, int generation) {
        this(bucket, ttlAttribute, wakeAt, hop, generation, bucket.start(), bucket.end());
    }

    /** The first generation of a hop of a whole bucket. */
    public BucketInput(Bucket bucket, String ttlAttribute, Instant wakeAt, int hop) {
        this(bucket, ttlAttribute, wakeAt, hop, 0);
    }

    /** The first execution of {@code bucket}, started at {@code now}, waking at the bucket's natural time. */
    public static BucketInput first(Bucket bucket, String ttlAttribute, Instant now) {
        return new BucketInput(bucket, ttlAttribute, cappedWake(bucket, now), 0);
    }

    /**
     * How much earlier than its first known second a planned minute wakes: items of the minute often reach
     * the handler a little out of order (a table's writers run in parallel, a batch ends mid-second); one
     * due before the runner's wake goes to the minute's early part ({@link #early}: two state transitions
     * and a runner, about $0.00005), while ten seconds of the runner's wait cost about $0.00001.
     */
    public static final Duration PLAN_SLACK = Duration.ofSeconds(10);

    /**
     * The first execution of a minute {@code bucket} started for items due no earlier than
     * {@code firstDue}: it wakes {@link #PLAN_SLACK} and {@link BucketWorkflow#WARM_LEAD} before that
     * second rather than before the minute, so its runner (an Express execution, billed while it runs)
     * does not wait through the empty part of the minute, and works the seconds after its wake
     * ({@link #from}). Any other level wakes at its natural time. Which party starts the execution first
     * decides its input; a later party reads the wake and {@code from} from it ({@link #wakeAtIn},
     * {@link #fromIn}) and places items due before it elsewhere.
     */
    public static BucketInput planned(Bucket bucket, String ttlAttribute, Instant now, long firstDue) {
        BucketInput first = first(bucket, ttlAttribute, now);
        if (bucket.level() != BucketLevel.MINUTE) {
            return first;
        }
        Instant planned = Instant.ofEpochSecond(Math.min(Math.max(firstDue, bucket.start()), bucket.end() - 1))
                .minus(PLAN_SLACK).minus(BucketWorkflow.WARM_LEAD);
        return planned.isAfter(first.wakeAt())
                ? new BucketInput(bucket, ttlAttribute, planned, 0, 0, planned.getEpochSecond() + 1, bucket.end())
                : first;
    }

    /**
     * The first execution of a minute's early part: the seconds before {@code until} (its main part's
     * {@link #from}), for items due before the main part wakes. It wakes as early as the minute allows, a
     * second before the minute or now, whichever is later, so any item that comes after it is still due
     * after its wake: its runner waits a little longer (at most until its main part wakes), which is
     * cheaper than a one-second bucket for each second an item comes for.
     */
    public static BucketInput early(Bucket minute, String ttlAttribute, Instant now, long until) {
        Instant natural = first(minute, ttlAttribute, now).wakeAt();
        Instant at = now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        return new BucketInput(minute, ttlAttribute, at.isAfter(natural) ? at : natural, 0, 0, minute.start(), until);
    }

    /** Which of its minute's runners this is ({@link MinutePart}); {@link MinutePart#MAIN} for any other level. */
    public MinutePart part() {
        return until < bucket.end() ? MinutePart.EARLY : MinutePart.MAIN;
    }

    /**
     * The {@code from} of an execution input this class wrote: the bucket's start when it holds none, and
     * the bucket's end when the text holds no wake that parses ({@link #wakeAtIn}), so a caller places no
     * item with an execution of unknown input.
     */
    public static long fromIn(String inputJson, Bucket bucket) {
        if (wakeAtIn(inputJson).equals(Instant.MAX)) {
            return bucket.end();
        }
        java.util.regex.Matcher from = FROM_FIELD.matcher(inputJson);
        return from.find() ? Long.parseLong(from.group(1)) : bucket.start();
    }

    private static final java.util.regex.Pattern FROM_FIELD =
            java.util.regex.Pattern.compile("\"" + BucketWorkflow.FROM + "\":([0-9]{1,18})[,}]");
    private static final java.util.regex.Pattern UNTIL_FIELD =
            java.util.regex.Pattern.compile("\"" + BucketWorkflow.UNTIL + "\":([0-9]{1,18})[,}]");

    /**
     * This input with the seconds of the execution input {@code inputJson} (one this class wrote for the
     * same bucket and part, {@link #toJson}): its {@code from} and {@code until}. A party that meets an
     * execution that ended and starts what follows it (a next generation, a one-year successor) starts
     * it for the seconds that execution held, whatever second the party itself planned for: the items
     * of those seconds were placed with it. This input unchanged when the text holds no seconds that
     * make a runner of this part.
     */
    public BucketInput withSecondsOf(String inputJson) {
        if (inputJson == null || wakeAtIn(inputJson).equals(Instant.MAX)) {
            return this;
        }
        java.util.regex.Matcher fromField = FROM_FIELD.matcher(inputJson);
        java.util.regex.Matcher untilField = UNTIL_FIELD.matcher(inputJson);
        long heldFrom = fromField.find() ? Long.parseLong(fromField.group(1)) : bucket.start();
        long heldUntil = untilField.find() ? Long.parseLong(untilField.group(1)) : bucket.end();
        if (heldFrom == from && heldUntil == until) {
            return this;
        }
        try {
            BucketInput held = new BucketInput(bucket, ttlAttribute, wakeAt, hop, generation, heldFrom, heldUntil);
            return held.part() == part() ? held : this;
        } catch (IllegalArgumentException e) {
            return this;
        }
    }

    /**
     * The {@code wakeAt} of an execution input this class wrote ({@link #toJson}); {@link Instant#MAX}
     * when the text holds none that parses, so a caller trusts an execution of unknown wake with no item.
     */
    public static Instant wakeAtIn(String inputJson) {
        if (inputJson == null) {
            return Instant.MAX;
        }
        java.util.regex.Matcher wake = WAKE_AT_FIELD.matcher(inputJson);
        if (!wake.find()) {
            return Instant.MAX;
        }
        try {
            return Instant.parse(wake.group(1));
        } catch (DateTimeParseException e) {
            return Instant.MAX;
        }
    }

    /** The one field {@link #wakeAtIn} reads, as {@link #toJson} writes it. */
    private static final java.util.regex.Pattern WAKE_AT_FIELD =
            java.util.regex.Pattern.compile("\"" + BucketWorkflow.WAKE_AT + "\":\"([0-9T:.Z-]+)\"");

    /** The input of the successor that carries the wait on from {@code now}. */
    public BucketInput successor(Instant now) {
        return new BucketInput(bucket, ttlAttribute, cappedWake(bucket, now), hop + 1, 0, from, until);
    }

    /**
     * The input of the generation that replaces this one, started at {@code now}: the same bucket and
     * hop, woken no earlier than {@code delay} from now (the back-off between generations), and never
     * before the bucket's own time.
     */
    public BucketInput nextGeneration(Instant now, Duration delay) {
        Instant wake = cappedWake(bucket, now);
        Instant delayed = now.plus(delay).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        return new BucketInput(bucket, ttlAttribute, delay.isZero() || !delayed.isAfter(wake) ? wake : delayed, hop,
                generation + 1, from, until);
    }

    /**
     * The execution's name: the bucket's, marked as a minute's early part, a one-year successor and a
     * generation that replaced an unfinished one where it is one ({@link BucketExecutionName}).
     */
    public String executionName() {
        return new BucketExecutionName(bucket.baseName(), part() == MinutePart.EARLY, hop, generation).toString();
    }

    /** Whether the execution woke before its bucket's time because of the one-year cap. */
    public boolean wokeForHorizon() {
        return wakeAt.isBefore(bucket.naturalWake());
    }

    private static Instant cappedWake(Bucket bucket, Instant now) {
        Instant cap = now.plus(ExpiryWorkflow.HORIZON).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Instant natural = bucket.naturalWake();
        return natural.isAfter(cap) ? cap : natural;
    }

    /** The input as JSON, fields in a fixed order. */
    public String toJson() {
        StringBuilder json = new StringBuilder(200);
        json.append('{');
        JsonText.appendString(json, Contract.FIELD);
        json.append(':').append(Contract.BUCKET_INPUT.version()).append(',');
        field(json, BucketWorkflow.TABLE, bucket.table()).append(',');
        field(json, BucketWorkflow.TTL_ATTRIBUTE, ttlAttribute).append(',');
        field(json, BucketWorkflow.LEVEL, bucket.level().label()).append(',');
        field(json, BucketWorkflow.BUCKET_START, DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochSecond(bucket.start()))).append(',');
        field(json, BucketWorkflow.WAKE_AT, DateTimeFormatter.ISO_INSTANT.format(wakeAt)).append(',');
        JsonText.appendString(json, BucketWorkflow.HOP);
        json.append(':').append(hop);
        // Absent for a whole bucket, so a minute planned for its start keeps the input it always had.
        if (from > bucket.start()) {
            json.append(',');
            JsonText.appendString(json, BucketWorkflow.FROM);
            json.append(':').append(from);
        }
        if (until < bucket.end()) {
            json.append(',');
            JsonText.appendString(json, BucketWorkflow.UNTIL);
            json.append(':').append(until);
        }
        // Absent for the first generation, so its input stays what it always was: a repeated
        // StartExecution must send the very same input to find the running execution.
        if (generation > 0) {
            json.append(',');
            JsonText.appendString(json, BucketWorkflow.GENERATION);
            json.append(':').append(generation);
        }
        return json.append('}').toString();
    }

    /**
     * Reads the payload the bucket function receives: the execution's input, as the Lambda runtime
     * deserializes it.
     *
     * @throws IllegalArgumentException naming the field that is missing or malformed, or the contract
     *     ({@link Contract#BUCKET_INPUT}) when the payload is of a newer version than this build reads
     */
    public static BucketInput fromPayload(Map<String, ?> payload) {
        if (payload == null) {
            throw new IllegalArgumentException("bucket payload is empty; expected the expire-bucket execution's input");
        }
        Contract.BUCKET_INPUT.checkPayload(payload);
        String table = text(payload, BucketWorkflow.TABLE);
        BucketLevel level = BucketLevel.fromLabel(text(payload, BucketWorkflow.LEVEL));
        Instant start = instant(payload, BucketWorkflow.BUCKET_START);
        Object hop = payload.get(BucketWorkflow.HOP);
        if (!(hop instanceof Number number)) {
            throw new IllegalArgumentException("bucket payload field '" + BucketWorkflow.HOP + "' must be a number, got " + hop);
        }
        Object generation = payload.containsKey(BucketWorkflow.GENERATION) ? payload.get(BucketWorkflow.GENERATION) : 0;
        if (!(generation instanceof Number generationNumber)) {
            throw new IllegalArgumentException("bucket payload field '" + BucketWorkflow.GENERATION + "' must be a number, got "
                    + generation);
        }
        Bucket bucket = new Bucket(table, level, start.getEpochSecond());
        return new BucketInput(bucket, text(payload, BucketWorkflow.TTL_ATTRIBUTE),
                instant(payload, BucketWorkflow.WAKE_AT), number.intValue(), generationNumber.intValue(),
                second(payload, BucketWorkflow.FROM, bucket.start()), second(payload, BucketWorkflow.UNTIL, bucket.end()));
    }

    private static long second(Map<String, ?> payload, String field, long absent) {
        if (!payload.containsKey(field)) {
            return absent;
        }
        if (!(payload.get(field) instanceof Number number)) {
            throw new IllegalArgumentException("bucket payload field '" + field + "' must be a number, got " + payload.get(field));
        }
        return number.longValue();
    }

    private static String text(Map<String, ?> payload, String field) {
        Object value = payload.get(field);
        if (!(value instanceof String text) || text.isEmpty()) {
            throw new IllegalArgumentException("bucket payload field '" + field + "' must be a non-empty string, got " + value);
        }
        return text;
    }

    private static Instant instant(Map<String, ?> payload, String field) {
        String text = text(payload, field);
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("bucket payload field '" + field + "' must be an RFC 3339 instant, got '" + text + "'", e);
        }
    }

    private static StringBuilder field(StringBuilder json, String name, String value) {
        JsonText.appendString(json, name);
        json.append(':');
        JsonText.appendString(json, value);
        return json;
    }
}
