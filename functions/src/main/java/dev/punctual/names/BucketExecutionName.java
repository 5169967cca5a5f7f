package dev.punctual.names;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of an {@code expire-bucket} execution: its bucket's name ({@link Base}), then {@code -e}
 * for a minute's early part, {@code -h<hop>} for one-year successors and {@code -g<generation>} for
 * generations that replaced an unfinished one, each only when there is one, in that order: e.g.
 * {@code 20270115T080000Z-minute-orders-vivnib-e-h1-g2}. At most 67 characters: 55, {@code -e},
 * {@code -h} and four digits (hops stay under 8,000 up to the year 9999) and {@code -g10}.
 *
 * @param bucket the bucket's name, which all its executions share
 * @param early whether the execution runs a minute's early part
 * @param hop one-year successors before this execution (0 for the first)
 * @param generation which generation of the bucket at this hop the execution is (0 for the first)
 */
public record BucketExecutionName(Base bucket, boolean early, int hop, int generation) {

    private static final String EARLY = "-e";
    private static final String HOP = "-h";
    private static final String GENERATION = "-g";
    private static final int TABLE_DIGEST_CHARS = 6;
    private static final String LEVEL_PATTERN = "[a-z]+";
    private static final Pattern LEVEL = Pattern.compile(LEVEL_PATTERN);
    private static final Pattern TABLE_LABEL = Pattern.compile(NameText.TABLE_LABEL_PATTERN);
    private static final Pattern TABLE_DIGEST = Pattern.compile(NameText.BASE32_PATTERN + "{" + TABLE_DIGEST_CHARS + "}");
    /**
     * The table label takes what it can, so a label ending in six base32 characters cannot be read
     * as a shorter label and its digest; the price is that a hop or generation of five digits all
     * within 2-7 would read as a digest, and neither comes near: hops stay under 8,000, generations
     * at 10 at most. A hop or generation of 0 is written as nothing, so {@code -h0} and {@code -g0}
     * are no bucket's.
     */
    private static final Pattern NAME = Pattern.compile("(" + NameText.INSTANT_PATTERN + ")-(" + LEVEL_PATTERN + ")-("
            + NameText.TABLE_LABEL_PATTERN + ")-(" + TABLE_DIGEST.pattern() + ")(" + EARLY + ")?(?:" + HOP
            + "([1-9][0-9]{0,8}))?(?:" + GENERATION + "([1-9][0-9]{0,8}))?");

    /**
     * A bucket's name: {@code <start>-<level>-<table>-<digest>}, e.g.
     * {@code 20270115T080000Z-minute-orders-vivnib}, where {@code table} is the table's name cut to 24
     * characters and {@code digest} is 30 bits of the full table name, which tells apart tables whose
     * names are cut alike. The start comes first, so the console sorts buckets by when they run. At
     * most 55 characters.
     *
     * @param start the bucket's first second
     * @param level the level's label ({@code second}, {@code minute}, ...)
     * @param tableLabel the table's name as names carry it
     * @param tableDigest 6 base32 characters of the table's full name
     */
    public record Base(Instant start, String level, String tableLabel, String tableDigest) {

        public Base {
            Objects.requireNonNull(start, "start");
            Objects.requireNonNull(level, "level");
            Objects.requireNonNull(tableLabel, "tableLabel");
            Objects.requireNonNull(tableDigest, "tableDigest");
            if (start.getNano() != 0) {
                throw new IllegalArgumentException("a bucket starts on a whole second, not at " + start);
            }
            if (!LEVEL.matcher(level).matches()) {
                throw new IllegalArgumentException("a level's label is lower-case letters, got '" + level + "'");
            }
            if (!TABLE_LABEL.matcher(tableLabel).matches() || !TABLE_DIGEST.matcher(tableDigest).matches()) {
                throw new IllegalArgumentException("not a table label and digest as names carry them: '" + tableLabel
                        + "', '" + tableDigest + "'");
            }
        }

        /** The name of {@code table}'s bucket of {@code level} (its label) that starts at {@code start}. */
        public static Base of(String table, String level, Instant start) {
            return new Base(start, level, NameText.tableLabel(table),
                    NameDigest.of("punctual/bucket/v1").text(table).base32(TABLE_DIGEST_CHARS));
        }

        /** What stands for the table in the name, the same in each of its buckets: its label and digest. */
        public String tablePart() {
            return tableLabel + '-' + tableDigest;
        }

        @Override
        public String toString() {
            return NameText.instant(start) + '-' + level + '-' + tablePart();
        }
    }

    public BucketExecutionName {
        Objects.requireNonNull(bucket, "bucket");
        if (hop < 0 || generation < 0) {
            throw new IllegalArgumentException("hop and generation must not be negative, got " + hop + " and " + generation);
        }
    }

    /** The execution's name. */
    @Override
    public String toString() {
        StringBuilder name = new StringBuilder(bucket.toString());
        if (early) {
            name.append(EARLY);
        }
        if (hop > 0) {
            name.append(HOP).append(hop);
        }
        if (generation > 0) {
            name.append(GENERATION).append(generation);
        }
        return name.toString();
    }

    /** The parts of {@code name}; empty when it is not the name of an {@code expire-bucket} execution. */
    public static Optional<BucketExecutionName> parse(String name) {
        Matcher parts = NAME.matcher(name);
        if (!parts.matches()) {
            return Optional.empty();
        }
        return NameText.instant(parts.group(1)).map(start -> new BucketExecutionName(
                new Base(start, parts.group(2), parts.group(3), parts.group(4)), parts.group(5) != null,
                number(parts.group(6)), number(parts.group(7))));
    }

    private static int number(String digits) {
        return digits == null ? 0 : Integer.parseInt(digits);
    }
}
