package dev.punctual.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.measure.SoakMinute;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SoakCommandTest {

    private static SoakMinute minute(int n, long heapMb, long journalBytes) {
        return new SoakMinute(n, n * 9000L, n * 9000L - 6000, 6000, 6000, Math.min(n, 5) * 2000, heapMb, 500,
                journalBytes, journalBytes, journalBytes * 2);
    }

    @Test
    void comparison_ofALongRun_setsTheLastMinuteAgainstMinuteFive() {
        List<SoakMinute> minutes = new ArrayList<>();
        for (int n = 1; n <= 30; n++) {
            minutes.add(minute(n, n == 5 ? 80 : n == 30 ? 90 : 70, n == 5 ? 20L << 20 : n == 30 ? 21L << 20 : 1));
        }

        assertThat(SoakCommand.comparison(minutes)).hasValueSatisfying(line -> assertThat(line)
                .startsWith("minute 30 vs 5").contains("heap after GC +10 MB (80 -> 90)")
                .contains("journal +5.0 % (20,480 -> 21,504 KB)").contains("closed executions kept 10,000 -> 10,000"));
    }

    @Test
    void comparison_ofAShortRun_usesItsMiddleMinute_andOfTwoMinutesNone() {
        List<SoakMinute> four = List.of(minute(1, 50, 0), minute(2, 80, 0), minute(3, 81, 0), minute(4, 83, 0));

        assertThat(SoakCommand.comparison(four)).hasValueSatisfying(line -> assertThat(line)
                .startsWith("minute 4 vs 2").contains("+3 MB (80 -> 83)").contains("journal n/a (in memory)")
                .contains("closed executions kept 4,000 -> 8,000"));
        assertThat(SoakCommand.comparison(four.subList(0, 2))).isEmpty();
    }

    @Test
    void minuteRow_showsTheJournalInKb_soWindowedModesTensOfKbAreVisible() {
        SoakMinute row = new SoakMinute(30, 270_000, 264_000, 6_000, 2, 1_870, 77, 566, 97_300, 113_900, 340L << 20);

        assertThat(SoakMinute.header()).contains("kept").contains("journal KB");
        assertThat(row.toText().trim().split(" +")).containsExactly("30", "270000", "264000", "6000", "2", "1870",
                "77", "566", "95", "111", "340.0");
    }

    @Test
    void soak_refusesARateOfZero_beforeStartingAnything() {
        StringWriter err = new StringWriter();

        int exit = PunctualCommand.run(new PrintWriter(new StringWriter()), new PrintWriter(err), "soak", "--rate", "0");

        assertThat(exit).isNotZero();
        assertThat(err.toString()).contains("--rate must be 1-5000, got 0");
    }
}
