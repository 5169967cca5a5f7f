package dev.punctual.names;

import dev.punctual.expiry.ItemKey;
import dev.punctual.expiry.TtlValue;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of an {@code expire-item} execution. The same item with the same TTL always gets the
 * same name, so a duplicate stream record, a retried batch or a backfill running beside the stream
 * start nothing twice. A chain of executions for one item and TTL is named
 * {@code <expiry>-<table>-<digest>}, e.g. {@code 20261121T230512Z-orders-2qkcspxkyffuktdwa5gr}:
 * <ul>
 *   <li>{@code expiry}: the instant the execution deletes at, so the console sorts by it;</li>
 *   <li>{@code table}: the table name cut to 24 characters (table names are {@code [A-Za-z0-9_.-]},
 *       all legal in execution names; anything else becomes {@code _});</li>
 *   <li>{@code digest}: {@value #DIGEST_CHARS} base32 characters ({@value #DIGEST_BITS} bits) of a
 *       SHA-256 over the table, the key's canonical encoding and the TTL text. At a million pending
 *       items the chance of any collision is about 4e-19.</li>
 * </ul>
 * A chain restarted after a closed execution held its name adds {@code -r<restart>}; the successor a
 * chain continues as when its wait is longer than a horizon adds {@code -h<hops left>}, which
 * {@code expire-item.asl.json} renders with {@code States.Format('{}-h{}', ...)} (a test in the local
 * module runs it and compares). A base name is at most {@value #MAX_BASE_LENGTH} characters, leaving
 * room for {@code -r} and 8 characters and for {@code -h8100} (a TTL in the year 9999) within Step
 * Functions' 80.
 *
 * @param base {@code <expiry>-<table>-<digest>}
 * @param restart the restart's 8 base32 characters, or empty for a chain never restarted
 * @param hopsLeft the horizon hops a successor still makes (0 for the last one), or
 *     {@link #CHAIN_START} for the chain's first execution, which carries no {@code -h}
 */
public record ItemExecutionName(String base, String restart, long hopsLeft) {

    /** {@link #hopsLeft} of a chain's first execution. */
    public static final long CHAIN_START = -1;
    /** Base32 characters of the item digest in a name. */
    public static final int DIGEST_CHARS = 20;
    /** Bits of the item digest in a name. */
    public static final int DIGEST_BITS = DIGEST_CHARS * 5;
    /** Longest base name: 16 (instant) + 1 + 24 (table) + 1 + 20 (digest). */
    public static final int MAX_BASE_LENGTH = 16 + 1 + NameText.TABLE_LABEL_LENGTH + 1 + DIGEST_CHARS;
    /** Characters a restart appends: {@code -r} and 8 base32 characters. */
    public static final int RESTART_SUFFIX_LENGTH = 10;

    private static final String RESTART = "-r";
    private static final String SUCCESSOR = "-h";
    private static final int RESTART_CHARS = RESTART_SUFFIX_LENGTH - RESTART.length();
    private static final Pattern BASE = Pattern.compile(NameText.INSTANT_PATTERN + "-" + NameText.TABLE_LABEL_PATTERN
            + "-" + NameText.BASE32_PATTERN + "{" + DIGEST_CHARS + "}");
    private static final Pattern RESTART_DIGEST = Pattern.compile(NameText.BASE32_PATTERN + "{" + RESTART_CHARS + "}");
    /** Hops as {@link #toString} writes them: no sign, no leading zero, within a long. */
    private static final Pattern NAME = Pattern.compile("(" + BASE.pattern() + ")(?:" + RESTART + "("
            + RESTART_DIGEST.pattern() + "))?(?:" + SUCCESSOR + "(0|[1-9][0-9]{0,17}))?");

    public ItemExecutionName {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(restart, "restart");
        if (!BASE.matcher(base).matches()) {
            throw new IllegalArgumentException("not an item execution's base name (<expiry>-<table>-<digest>): '" + base + "'");
        }
        if (!restart.isEmpty() && !RESTART_DIGEST.matcher(restart).matches()) {
            throw new IllegalArgumentException("a restart is " + RESTART_CHARS + " base32 characters, got '" + restart + "'");
        }
        if (hopsLeft < CHAIN_START) {
            throw new IllegalArgumentException("hops left must not be negative, got " + hopsLeft);
        }
    }

    /** The first execution of the chain that expires {@code key} of {@code table} at {@code ttl}. */
    public static ItemExecutionName first(String table, ItemKey key, TtlValue ttl) {
        String digest = NameDigest.of("punctual/execution/v1").text(table).key(key).text(ttl.text()).base32(DIGEST_CHARS);
        return new ItemExecutionName(NameText.instant(ttl.expireAt()) + '-' + NameText.tableLabel(table) + '-' + digest,
                "", CHAIN_START);
    }

    /**
     * The first execution of the chain that starts over when this chain's name is held by a closed
     * execution that stopped at {@code holderStopDate}: the item was recreated with the same TTL after
     * its expiry, or its TTL went back to an earlier value. Derived from the base and the holder, not
     * from the record, so every record and every backfill run that meets the same holder picks the
     * same name.
     */
    public ItemExecutionName restarted(Instant holderStopDate) {
        ByteBuffer stop = ByteBuffer.allocate(12).putLong(holderStopDate.getEpochSecond()).putInt(holderStopDate.getNano());
        return new ItemExecutionName(base, NameDigest.of("punctual/restart/v1").text(base).field(stop.array())
                .base32(RESTART_CHARS), CHAIN_START);
    }

    /** The successor this chain continues as with {@code hopsLeft} hops still to make. */
    public ItemExecutionName successor(long hopsLeft) {
        if (hopsLeft < 0) {
            throw new IllegalArgumentException("a successor's hops left must not be negative, got " + hopsLeft);
        }
        return new ItemExecutionName(base, restart, hopsLeft);
    }

    /** The chain's name, which its first execution carries and every successor extends (the input's {@code chainName}). */
    public String chainName() {
        return restart.isEmpty() ? base : base + RESTART + restart;
    }

    /** The execution's name. */
    @Override
    public String toString() {
        return hopsLeft == CHAIN_START ? chainName() : chainName() + SUCCESSOR + hopsLeft;
    }

    /** The parts of {@code name}; empty when it is not the name of an {@code expire-item} execution. */
    public static Optional<ItemExecutionName> parse(String name) {
        Matcher parts = NAME.matcher(name);
        if (!parts.matches()) {
            return Optional.empty();
        }
        return Optional.of(new ItemExecutionName(parts.group(1), parts.group(2) == null ? "" : parts.group(2),
                parts.group(3) == null ? CHAIN_START : Long.parseLong(parts.group(3))));
    }
}
