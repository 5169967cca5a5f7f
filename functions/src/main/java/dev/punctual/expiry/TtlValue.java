package dev.punctual.expiry;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A TTL Number as DynamoDB stores it, and the native TTL rules that decide whether it can be
 * scheduled. The original text is kept because the conditional delete compares exactly that Number.
 */
public final class TtlValue {

    /**
     * Epoch seconds from which a TTL is taken for milliseconds (or micro-, nanoseconds): 1e11 s is
     * the year 5138, while every millisecond timestamp after 1973-03-03 is at least 1e11. A seconds
     * value this large is never meant, and native TTL would never reach it either.
     */
    public static final BigDecimal MILLISECONDS_THRESHOLD = new BigDecimal("1E11");

    /** Native TTL's guard against malformed values: it never deletes items whose TTL is older than this. */
    public static final int NATIVE_LOOKBACK_YEARS = 5;

    /**
     * The last second RFC 3339 can write (9999-12-31T23:59:59Z). It lies above
     * {@link #MILLISECONDS_THRESHOLD}, so every TTL beyond it is already refused as milliseconds.
     */
    public static final long LAST_RFC3339_SECOND = 253_402_300_799L;

    private static final BigDecimal NANOS_PER_SECOND = BigDecimal.valueOf(1_000_000_000L);
    /** The last second a UTC date-time can name (year 999,999,999); past it a year is only "beyond". */
    private static final long LAST_INSTANT_SECOND = LocalDateTime.MAX.toEpochSecond(ZoneOffset.UTC);

    private final String text;
    private final BigDecimal seconds;

    private TtlValue(String text, BigDecimal seconds) {
        this.text = text;
        this.seconds = seconds;
    }

    /** The outcome of checking a TTL attribute against the rules. */
    public sealed interface Check permits Valid, Invalid {
    }

    /** A TTL that can be scheduled, with the instant to delete at. */
    public record Valid(TtlValue ttl, Instant expireAt) implements Check {
    }

    /** A TTL that cannot be scheduled, and why, in words fit for a log line. */
    public record Invalid(Reason reason, String detail) implements Check {
    }

    /**
     * Applies the native TTL rules to an image's TTL attribute.
     *
     * @param attribute the attribute, {@code null} when the image does not hold it
     * @param attributeName the TTL attribute's name, for messages
     * @param now the current time
     */
    public static Check check(AttributeText attribute, String attributeName, Instant now) {
        if (attribute == null) {
            return new Invalid(Reason.NO_TTL, "no TTL attribute '" + attributeName + "'; not scheduled");
        }
        if (attribute.type() != AttributeType.N) {
            return new Invalid(Reason.TTL_NOT_A_NUMBER, "TTL attribute '" + attributeName + "' is of type "
                    + attribute.type() + ", not a Number of epoch seconds; not scheduled (native TTL ignores it too)");
        }
        BigDecimal seconds;
        try {
            seconds = new BigDecimal(attribute.text());
        } catch (NumberFormatException e) {
            return new Invalid(Reason.TTL_NOT_PARSEABLE, "TTL '" + attribute.text() + "' is not a decimal number; not scheduled");
        }
        if (seconds.compareTo(MILLISECONDS_THRESHOLD) >= 0) {
            return new Invalid(Reason.TTL_LOOKS_LIKE_MILLISECONDS, "TTL " + attribute.text()
                    + " looks like milliseconds; as seconds it is year " + yearOf(seconds) + "; not scheduled");
        }
        Instant cutoff = now.atOffset(ZoneOffset.UTC).minusYears(NATIVE_LOOKBACK_YEARS).toInstant();
        if (seconds.compareTo(decimalSeconds(cutoff)) < 0) {
            return new Invalid(Reason.TTL_TOO_OLD, "TTL " + attribute.text() + " is more than "
                    + NATIVE_LOOKBACK_YEARS + " years in the past; not scheduled (native TTL never deletes it either)");
        }
        TtlValue ttl = new TtlValue(attribute.text(), seconds);
        return new Valid(ttl, ttl.expireAt());
    }

    /** The Number exactly as stored, e.g. {@code 1.7E9}: what the conditional delete compares. */
    public String text() {
        return text;
    }

    /** The Number's value in seconds. */
    public BigDecimal seconds() {
        return seconds;
    }

    /**
     * The whole second to delete at: the TTL rounded up, because a Wait state truncates
     * milliseconds and deleting at the truncated second would be early.
     */
    public Instant expireAt() {
        return Instant.ofEpochSecond(seconds.setScale(0, RoundingMode.CEILING).longValueExact());
    }

    /** The TTL itself as an instant, fractions of a second kept (to the nanosecond). */
    public Instant instant() {
        BigDecimal whole = seconds.setScale(0, RoundingMode.FLOOR);
        long nanos = seconds.subtract(whole).multiply(NANOS_PER_SECOND).setScale(0, RoundingMode.CEILING).longValueExact();
        return Instant.ofEpochSecond(whole.longValueExact()).plusNanos(nanos);
    }

    private static BigDecimal decimalSeconds(Instant instant) {
        return BigDecimal.valueOf(instant.getEpochSecond())
                .add(BigDecimal.valueOf(instant.getNano()).divide(NANOS_PER_SECOND));
    }

    private static String yearOf(BigDecimal seconds) {
        if (seconds.compareTo(BigDecimal.valueOf(LAST_INSTANT_SECOND)) > 0) {
            return "beyond 1000000000";
        }
        return Integer.toString(Instant.ofEpochSecond(seconds.longValue()).atOffset(ZoneOffset.UTC).getYear());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TtlValue that && text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(text);
    }

    @Override
    public String toString() {
        return text;
    }
}
