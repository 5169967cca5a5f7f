package dev.punctual.local.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent.DynamodbStreamRecord;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamRecord;
import dev.punctual.local.retention.Retention;
import dev.punctual.local.time.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dead letters are kept within a count and an age, in memory and in their file. */
class DeadLetterRetentionTest {

    private static final WatchedTable TABLE = new WatchedTable("orders",
            "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2030-01-01T00:00:00.000", "expiresAt");
    private final ManualClock clock = new ManualClock(Instant.parse("2030-01-01T00:00:00Z"));

    private DeadLetters store(Path directory, Retention retention) {
        return new DeadLetters(directory, letter -> (event, context) -> null, "per-item", clock, "us-east-1",
                retention);
    }

    private DeadLetter file(DeadLetters letters, String sequenceNumber) {
        DynamodbStreamRecord record = new DynamodbStreamRecord();
        record.setDynamodb(new StreamRecord().withSequenceNumber(sequenceNumber)
                .withApproximateCreationDateTime(Date.from(clock.instant())));
        return letters.add(TABLE, "shard-1", DeadLetter.RETRY_ATTEMPTS_EXHAUSTED, 3, "Unhandled", List.of(record));
    }

    @Test
    void add_beyondTheCount_forgetsTheOldest() {
        DeadLetters letters = store(null, Retention.of(2, Duration.ofDays(4)));
        DeadLetter first = file(letters, "1");
        file(letters, "2");
        file(letters, "3");

        assertThat(letters.list()).hasSize(2).noneMatch(letter -> letter.id().equals(first.id()));
        assertThat(letters.find(first.id())).isEmpty();
        assertThat(letters.forgotten()).isEqualTo(1);
    }

    @Test
    void list_olderThanTheAge_forgetsThem() {
        DeadLetters letters = store(null, Retention.of(100, Duration.ofHours(1)));
        file(letters, "1");
        clock.advance(Duration.ofMinutes(30));
        DeadLetter younger = file(letters, "2");

        clock.advance(Duration.ofMinutes(30).plusMillis(1));

        assertThat(letters.list()).extracting(DeadLetter::id).containsExactly(younger.id());
    }

    @Test
    void theFile_staysWithinTwiceTheCount_andReopensWithWhatWasKept(@TempDir Path directory) throws IOException {
        DeadLetters letters = store(directory, Retention.of(2, Duration.ofDays(4)));
        for (int i = 1; i <= 7; i++) {
            file(letters, Integer.toString(i));
        }
        List<String> kept = letters.list().stream().map(DeadLetter::id).toList();

        assertThat(Files.readAllLines(directory.resolve(DeadLetters.FILE_NAME))).hasSizeLessThanOrEqualTo(4);
        assertThat(store(directory, Retention.of(2, Duration.ofDays(4))).list()).extracting(DeadLetter::id)
                .containsExactlyElementsOf(kept);
    }

    @Test
    void reopening_forgetsWhatAgedOutWhileStopped(@TempDir Path directory) throws IOException {
        file(store(directory, Retention.of(100, Duration.ofHours(1))), "1");
        clock.advance(Duration.ofHours(2));

        DeadLetters reopened = store(directory, Retention.of(100, Duration.ofHours(1)));

        assertThat(reopened.list()).isEmpty();
        assertThat(Files.readAllLines(directory.resolve(DeadLetters.FILE_NAME))).isEmpty();
    }
}
