package dev.punctual.local.retention;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How much of one kind of past the runtime keeps: at most {@code count} entries, none older than
 * {@code age}.
 */
public record Retention(int count, Duration age) {

    /**
     * Forgets nothing: for a command that reads what a runtime kept, without knowing the bounds the
     * runtime ran with, and must not drop any of it.
     */
    public static final Retention EVERYTHING = new Retention(Integer.MAX_VALUE, Duration.ofDays(365L * 1000));

    private static final Pattern AGE = Pattern.compile("(\\d+)(s|m|h|d)");

    public Retention {
        if (count < 1) {
            throw new IllegalArgumentException("a retained count must be at least 1, got " + count);
        }
        if (age == null || age.isNegative() || age.isZero()) {
            throw new IllegalArgumentException("a retained age must be positive, got " + age);
        }
    }

    /** Keeps at most {@code count} for at most {@code age}. */
    public static Retention of(int count, Duration age) {
        return new Retention(count, age);
    }

    public Retention withCount(int newCount) {
        return new Retention(newCount, age);
    }

    public Retention withAge(Duration newAge) {
        return new Retention(count, newAge);
    }

    /**
     * This retention with one bound changed by {@code --retain}'s value: a whole number is a count,
     * a number with a unit ({@code 90s}, {@code 30m}, {@code 2h}, {@code 4d}) an age.
     *
     * @throws IllegalArgumentException saying what the value may be
     */
    Retention with(String value) {
        String text = value.strip().replace("_", "");
        Matcher age = AGE.matcher(text);
        try {
            if (age.matches()) {
                long amount = Long.parseLong(age.group(1));
                return withAge(switch (age.group(2)) {
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    case "h" -> Duration.ofHours(amount);
                    default -> Duration.ofDays(amount);
                });
            }
            return withCount(Integer.parseInt(text));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("expected a count (e.g. 5000) or an age (e.g. 90s, 30m, 2h, 4d), got '"
                    + value + "'");
        }
    }

    /** {@code 15m}, {@code 1h}, {@code 4d}: the largest unit that divides the age, as {@code --retain} takes it. */
    static String formatAge(Duration age) {
        long seconds = age.toSeconds();
        if (seconds % 86_400 == 0) {
            return seconds / 86_400 + "d";
        }
        if (seconds % 3_600 == 0) {
            return seconds / 3_600 + "h";
        }
        if (seconds % 60 == 0) {
            return seconds / 60 + "m";
        }
        return seconds + "s";
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%,d for %s", count, formatAge(age));
    }
}
