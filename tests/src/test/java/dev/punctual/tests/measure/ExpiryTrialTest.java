package dev.punctual.tests.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.measure.AccuracyReport;
import dev.punctual.local.measure.ExpiryTrial;
import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.local.time.ManualClock;
import dev.punctual.tests.support.SharedRuntime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The trial behind {@code demo} and {@code bench} on the real embedded runtime, in real time: a burst
 * of items written while the stream mapping is paused, then delivered as a backlog and expired; and a
 * trial whose writes cannot keep ahead of its TTLs. A trial pauses the runtime's one stream mapping
 * while it writes, so these tests run one after the other and apart from the end-to-end tests that run
 * side by side on the same runtime and need the mapping running.
 */
@ExtendWith(SharedRuntime.class)
class ExpiryTrialTest {

    private static LocalRuntime runtime;

    @BeforeAll
    static void connect(LocalRuntime shared) {
        runtime = shared;
    }

    @Test
    void burstOfAThousandItems_allExpire_noneEarly_noneMissed() throws InterruptedException {
        // TTLs spread over 20 s, 15 s after the start: on a quiet 2-core box the thousand writes take a few
        // seconds. How fast DynamoDB Local takes writes depends on the machine's load (at load 24 it took 45 a
        // second), and a trial whose writes reach its first TTL measures nothing: it stops and says what lead
        // the write rate needs. The test then does what the message tells a user to do, once.
        ExpiryTrial.Settings settings = burst(Duration.ofSeconds(15));
        AccuracyReport report;
        try {
            report = new ExpiryTrial(runtime).run(settings, ExpiryTrial.Progress.NONE);
        } catch (ExpiryTrial.LeadTooShortException slowWrites) {
            report = new ExpiryTrial(runtime).run(burst(slowWrites.suggestedLead()), ExpiryTrial.Progress.NONE);
        }

        assertThat(report.items()).isEqualTo(1000);
        assertThat(report.early()).as("deleted before their TTL (history or table reads); report:%n%s", report.toText()).isZero();
        assertThat(report.missed()).as("still present after every TTL; report:%n%s", report.toText()).isZero();
        // Every item is gone, and Punctual deleted every one itself (no native TTL job runs locally).
        assertThat(report.deleted()).as("deleted by Punctual; report:%n%s", report.toText()).isEqualTo(1000);
        assertThat(report.backstop()).isZero();
        assertThat(report.lagMillis()).as("lags, sorted: the least is TaskSucceeded minus TTL of the earliest delete")
                .hasSize(1000).satisfies(lags -> assertThat(lags[0]).isNotNegative());
    }

    private static ExpiryTrial.Settings burst(Duration lead) {
        String table = "e2e-burst-" + Long.toString(System.currentTimeMillis() % 100_000, 36);
        return new ExpiryTrial.Settings(table, 1000, Duration.ofSeconds(20), lead, Duration.ofSeconds(10), 4);
    }

    @Test
    void aTrialWhoseWritesReachTheFirstTtl_stopsWithTheLeadItNeeds_insteadOfReportingMisses() {
        String table = "e2e-lead-" + Long.toString(System.currentTimeMillis() % 100_000, 36);
        ManualClock clock = new ManualClock(Instant.now());
        // Ten seconds of lead, which the clock spends as soon as the first 100 items are written.
        ExpiryTrial.Settings settings = new ExpiryTrial.Settings(table, 1000, Duration.ofSeconds(5), Duration.ofSeconds(10),
                Duration.ofSeconds(10), 1);
        ExpiryTrial.Progress spendsTheLead = new ExpiryTrial.Progress() {
            @Override
            public void written(long count) {
                if (count == 100) {
                    clock.advance(Duration.ofSeconds(20));
                }
            }

            @Override
            public void expired(long count) {
            }
        };

        assertThatThrownBy(() -> new ExpiryTrial(runtime, clock).run(settings, spendsTheLead))
                .isInstanceOf(ExpiryTrial.LeadTooShortException.class)
                .hasMessageStartingWith("only 100 of 1000 items were written when the first TTL came, 20 s after the start")
                .hasMessageEndingWith("a lead of at least 310 s is needed (--lead)")
                .satisfies(e -> assertThat(((ExpiryTrial.LeadTooShortException) e).suggestedLead()).isEqualTo(Duration.ofSeconds(310)));
        assertThat(runtime.streamPoller().isEnabled()).as("the mapping is enabled again").isTrue();
    }
}
