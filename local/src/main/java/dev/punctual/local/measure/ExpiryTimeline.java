package dev.punctual.local.measure;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Where each TTL second's time went: for every second that items fell due in, when its work passed
 * each phase, as an offset from the start of that second (negative: before it). Windowed mode's
 * bucket reports when it was invoked, sealed, read and woke at its second; per-item mode's executions when the first
 * and the last of them woke from their Wait; in both modes the first and the last of the second's
 * deletes returned, from the same source as the lag (so a second's {@code lastDelete} is the largest
 * lag of its items). Over all seconds, each phase's percentiles say where the time usually goes,
 * {@code drain} (last delete minus first) compares with DynamoDB Local's floor for a burst of deletes,
 * {@code overran} counts seconds whose deletes ran into the next second, and {@code cpu}
 * ({@link ResourceUse}) says how busy the process and DynamoDB Local's database thread were meanwhile.
 */
public final class ExpiryTimeline {

    /** A point in a second's work; a mode reports the phases it has. */
    public enum Phase {
        /** Windowed: the bucket function was invoked (its Wait ends one second early, so it is warm). */
        INVOKED("invoked"),
        /** Windowed: the bucket's seal was written, on arrival. */
        SEAL("seal"),
        /** Windowed: the bucket's entries were read; it waits for its second. */
        READ("read"),
        /** Windowed: the bucket woke at its second and its deletes start; per-item: the first execution left its Wait. */
        WAKE("wake"),
        /** Per-item: the last execution left its Wait. */
        LAST_WAKE("lastWake"),
        /** The first delete returned. */
        FIRST_DELETE("firstDelete"),
        /** The last delete returned. */
        LAST_DELETE("lastDelete");

        private final String label;

        Phase(String label) {
            this.label = label;
        }

        /** The name in {@code bench --json}. */
        public String label() {
            return label;
        }
    }

    /**
     * One TTL second.
     *
     * @param second the second, in epoch seconds
     * @param items items due in it
     * @param deleted items Punctual deleted
     * @param itemsRead items its bucket read (windowed), or -1
     * @param micros each phase reached, as microseconds from the start of the second
     */
    public record Second(long second, int items, int deleted, int itemsRead, Map<Phase, Long> micros) {

        public Second {
            EnumMap<Phase, Long> copy = new EnumMap<>(Phase.class);
            copy.putAll(micros);
            micros = Collections.unmodifiableMap(copy);
        }

        /** A phase's offset in milliseconds, if it was reached. */
        public Optional<Double> millis(Phase phase) {
            Long at = micros.get(phase);
            return at == null ? Optional.empty() : Optional.of(at / 1000.0);
        }

        /** Last delete minus first, in microseconds, if both returned. */
        Optional<Long> drainMicros() {
            Long first = micros.get(Phase.FIRST_DELETE);
            Long last = micros.get(Phase.LAST_DELETE);
            return first == null || last == null ? Optional.empty() : Optional.of(last - first);
        }
    }

    private final List<Second> seconds;
    private final ResourceUse resources;

    private ExpiryTimeline(List<Second> seconds, ResourceUse resources) {
        this.seconds = List.copyOf(seconds);
        this.resources = resources;
    }

    /** No seconds: a trial that measured none. */
    public static ExpiryTimeline empty() {
        return new ExpiryTimeline(List.of(), ResourceUse.none());
    }

    /** What the process spent from a second before the first TTL until the trial stopped waiting. */
    public ResourceUse resources() {
        return resources;
    }

    /** The seconds, in order. */
    public List<Second> seconds() {
        return seconds;
    }

    /** Seconds whose last delete returned a whole second or more after the second began. */
    public int overran() {
        return (int) seconds.stream().filter(s -> s.micros().getOrDefault(Phase.LAST_DELETE, 0L) >= 1_000_000).count();
    }

    /** The phases with their percentiles over the seconds, {@code drain}, {@code overran}, and, if asked, every second. */
    public String toJson(boolean everySecond) {
        StringBuilder json = new StringBuilder("{\"seconds\":").append(seconds.size()).append(",\"phasesMs\":{");
        String separator = "";
        for (Phase phase : Phase.values()) {
            long[] sorted = sortedMicros(phase);
            if (sorted.length > 0) {
                json.append(separator).append('"').append(phase.label()).append("\":").append(spread(sorted));
                separator = ",";
            }
        }
        json.append("},\"drainMs\":").append(spread(drains())).append(",\"overran\":").append(overran())
                .append(",\"cpu\":").append(resources.toJson());
        if (everySecond) {
            json.append(",\"perSecond\":[");
            for (int i = 0; i < seconds.size(); i++) {
                Second second = seconds.get(i);
                json.append(i == 0 ? "" : ",").append("{\"second\":").append(second.second()).append(",\"items\":")
                        .append(second.items()).append(",\"deleted\":").append(second.deleted());
                if (second.itemsRead() >= 0) {
                    json.append(",\"itemsRead\":").append(second.itemsRead());
                }
                second.micros().forEach((phase, micros) -> json.append(",\"").append(phase.label()).append("\":")
                        .append(millis(micros)));
                json.append('}');
            }
            json.append(']');
        }
        return json.append('}').toString();
    }

    /**
     * The human-readable block: each phase's p50 / p90 / max over the seconds, {@code drain} and
     * {@code overran}, and, if asked, one line per second.
     */
    public String toText(boolean everySecond) {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
                "timeline           %d seconds; ms from each second's start, p50 / p90 / max over the seconds", seconds.size()));
        for (Phase phase : Phase.values()) {
            long[] sorted = sortedMicros(phase);
            if (sorted.length > 0) {
                text.append(String.format(Locale.ROOT, "%n  %-16s %s", phase.label(), spreadText(sorted)));
            }
        }
        text.append(String.format(Locale.ROOT, "%n  %-16s %s (last delete minus first)", "drain", spreadText(drains())));
        text.append(String.format(Locale.ROOT, "%n  %-16s %d seconds (deletes still running at the next second)", "overran",
                overran()));
        text.append(String.format(Locale.ROOT, "%n%s", resources.toText()));
        if (everySecond) {
            for (Second second : seconds) {
                text.append(String.format(Locale.ROOT, "%n  %d  %d items, %d deleted", second.second(), second.items(),
                        second.deleted()));
                second.micros().forEach((phase, micros) -> text.append(", ").append(phase.label()).append(' ')
                        .append(millis(micros)));
            }
        }
        return text.toString();
    }

    private long[] sortedMicros(Phase phase) {
        return seconds.stream().map(s -> s.micros().get(phase)).filter(java.util.Objects::nonNull)
                .mapToLong(Long::longValue).sorted().toArray();
    }

    private long[] drains() {
        return seconds.stream().map(Second::drainMicros).flatMap(Optional::stream).mapToLong(Long::longValue)
                .sorted().toArray();
    }

    private static String spreadText(long[] sortedMicros) {
        return millis(Percentiles.nearestRank(sortedMicros, 50)) + " / " + millis(Percentiles.nearestRank(sortedMicros, 90))
                + " / " + millis(Percentiles.max(sortedMicros));
    }

    private static String spread(long[] sortedMicros) {
        return "{\"p50\":" + millis(Percentiles.nearestRank(sortedMicros, 50)) + ",\"p90\":"
                + millis(Percentiles.nearestRank(sortedMicros, 90)) + ",\"max\":" + millis(Percentiles.max(sortedMicros)) + "}";
    }

    private static String millis(long micros) {
        return String.format(Locale.ROOT, "%.1f", micros / 1000.0);
    }

    /** Collects a trial's items and buckets into seconds. */
    public static Builder builder() {
        return new Builder();
    }

    /** Items and bucket reports in any order; {@link #build()} groups them by TTL second. */
    public static final class Builder {

        private final Map<Long, Collecting> seconds = new TreeMap<>();
        private ResourceUse resources = ResourceUse.none();

        private Builder() {
        }

        /** What the process spent while the items fell due. */
        public Builder resources(ResourceUse used) {
            this.resources = used;
            return this;
        }

        /**
         * One item due in {@code ttlSecond}.
         *
         * @param wokeAt when its execution left its Wait (per-item mode), or {@code null}
         * @param deletedAt when Punctual's delete of it returned, or {@code null}
         */
        public Builder item(long ttlSecond, Instant wokeAt, Instant deletedAt) {
            Collecting second = seconds.computeIfAbsent(ttlSecond, Collecting::new);
            second.items++;
            if (wokeAt != null) {
                second.earliest(Phase.WAKE, wokeAt);
                second.latest(Phase.LAST_WAKE, wokeAt);
            }
            if (deletedAt != null) {
                second.deleted++;
                second.earliest(Phase.FIRST_DELETE, deletedAt);
                second.latest(Phase.LAST_DELETE, deletedAt);
            }
            return this;
        }

        /**
         * What the bucket of {@code second} reported (windowed mode); a phase it did not reach is
         * {@code null}, and {@code read} is -1 if it did not read.
         */
        public Builder bucket(long second, Instant invoked, Instant woke, Instant sealed, Instant readAt, int read) {
            Collecting collecting = seconds.computeIfAbsent(second, Collecting::new);
            collecting.set(Phase.INVOKED, invoked);
            collecting.set(Phase.WAKE, woke);
            collecting.set(Phase.SEAL, sealed);
            collecting.set(Phase.READ, readAt);
            collecting.itemsRead = read;
            return this;
        }

        public ExpiryTimeline build() {
            List<Second> built = new ArrayList<>(seconds.size());
            seconds.values().forEach(c -> built.add(c.second()));
            return new ExpiryTimeline(built, resources);
        }
    }

    private static final class Collecting {
        private final long second;
        private final Map<Phase, Long> micros = new EnumMap<>(Phase.class);
        private int items;
        private int deleted;
        private int itemsRead = -1;

        Collecting(long second) {
            this.second = second;
        }

        void set(Phase phase, Instant at) {
            if (at != null) {
                micros.put(phase, offset(at));
            }
        }

        void earliest(Phase phase, Instant at) {
            micros.merge(phase, offset(at), Math::min);
        }

        void latest(Phase phase, Instant at) {
            micros.merge(phase, offset(at), Math::max);
        }

        private long offset(Instant at) {
            Duration since = Duration.between(Instant.ofEpochSecond(second), at);
            return since.getSeconds() * 1_000_000 + since.getNano() / 1_000;
        }

        Second second() {
            return new Second(second, items, deleted, itemsRead, micros);
        }
    }
}
