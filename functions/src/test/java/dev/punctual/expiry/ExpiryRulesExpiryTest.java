package dev.punctual.expiry;

import static dev.punctual.expiry.Changes.insert;
import static dev.punctual.expiry.Changes.n;
import static dev.punctual.expiry.Changes.remove;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.expiry.StreamChange.Writer;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link ExpiryRules#expiry}: which REMOVE records are expiries, read at which instant. */
class ExpiryRulesExpiryTest {

    /** 2026-01-01T00:00:00Z. */
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final ExpiryRules rules = new ExpiryRules("ttl");

    @Test
    void expiry_whenNativeTtlDeleted_isMarkedNativeTtlWithItsLag() {
        Optional<Expiry> expiry = rules.expiry(remove(n("1767225500"), Writer.TTL_SERVICE, NOW), NOW);

        assertThat(expiry).hasValueSatisfying(e -> {
            assertThat(e.expiredBy()).isEqualTo(Expiry.By.NATIVE_TTL);
            assertThat(e.ttl()).isEqualTo("1767225500");
            assertThat(e.deletedAt()).isEqualTo(NOW);
            assertThat(e.lagMillis()).hasValue(100_000);
        });
    }

    @Test
    void expiry_whenOurDeleteIsReadAfterTheTtl_isPunctualsWithTheMillisecondsSince() {
        Instant read = Instant.parse("2026-01-01T00:00:30.250Z");

        Optional<Expiry> expiry = rules.expiry(remove(n("1767225630"), Writer.UNKNOWN, NOW), read);

        assertThat(expiry).hasValueSatisfying(e -> {
            assertThat(e.expiredBy()).isEqualTo(Expiry.By.PUNCTUAL);
            assertThat(e.lagMillis()).hasValue(250);
        });
    }

    @Test
    void expiry_fractionalTtl_countsFromTheExactInstant() {
        Instant read = Instant.parse("2026-01-01T00:00:01Z");

        assertThat(rules.expiry(remove(n("1767225600.400"), Writer.UNKNOWN, NOW), read))
                .hasValueSatisfying(e -> assertThat(e.lagMillis()).hasValue(600));
        assertThat(rules.expiry(remove(n("1767225601.001"), Writer.UNKNOWN, NOW), read)).isEmpty();
    }

    @Test
    void expiry_whenADeleteIsReadBeforeTheTtl_isNone() {
        // Within the minute the stream's rounded creation time allows, but read before the TTL:
        // Punctual never deletes early, so an application deleted it.
        assertThat(rules.expiry(remove(n("1767225630"), Writer.UNKNOWN, NOW), NOW.plusSeconds(29))).isEmpty();
    }

    @Test
    void expiry_whenDeletedLongBeforeTheTtl_isNoneEvenIfReadLater() {
        assertThat(rules.expiry(remove(n("1767229200"), Writer.UNKNOWN, NOW), Instant.parse("2026-01-01T02:00:00Z"))).isEmpty();
    }

    @Test
    void expiry_whenNoValidTtlOrNotARemove_isNone() {
        assertThat(rules.expiry(remove(null, Writer.UNKNOWN, NOW), NOW)).isEmpty();
        assertThat(rules.expiry(remove(AttributeText.s("1767225500"), Writer.UNKNOWN, NOW), NOW)).isEmpty();
        assertThat(rules.expiry(insert(n("1767225500")), NOW)).isEmpty();
    }

    @Test
    void expiry_idIsTheSameForTheSameRecordAndDiffersForAnother() {
        StreamChange record = remove(n("1767225500"), Writer.UNKNOWN, NOW);
        StreamChange redelivered = remove(n("1767225500"), Writer.UNKNOWN, NOW);
        StreamChange recreatedAndExpiredAgain = new StreamChange(record.table(), EventName.REMOVE, record.key(), true,
                n("1767225500"), false, null, "900", Writer.UNKNOWN, NOW);

        String id = rules.expiry(record, NOW).orElseThrow().id();

        assertThat(rules.expiry(redelivered, NOW.plusSeconds(5)).orElseThrow().id()).isEqualTo(id);
        assertThat(rules.expiry(recreatedAndExpiredAgain, NOW).orElseThrow().id()).isNotEqualTo(id);
        assertThat(id).matches("[a-z2-7]{26}");
    }
}
