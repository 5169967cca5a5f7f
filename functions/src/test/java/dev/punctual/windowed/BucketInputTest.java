package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The bucket function's payload: what {@link BucketInput#toJson} writes, {@link BucketInput#fromPayload} reads back. */
class BucketInputTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2027-01-15T08:00:00Z");

    /** The payload as the Lambda runtime hands it over: the execution's input, deserialized to a map. */
    private static Map<String, Object> payload(BucketInput input) throws Exception {
        return JSON.readValue(input.toJson(), new TypeReference<LinkedHashMap<String, Object>>() { });
    }

    @Test
    void fromPayload_readsBackWhatToJsonWrote_forEveryLevelAndForSuccessors() throws Exception {
        for (BucketLevel level : BucketLevel.values()) {
            BucketInput first = BucketInput.first(Bucket.containing("orders", level, NOW.getEpochSecond() + 7_200), "expires", NOW);
            BucketInput successor = first.successor(NOW.plusSeconds(30));

            assertThat(BucketInput.fromPayload(payload(first))).isEqualTo(first);
            assertThat(BucketInput.fromPayload(payload(successor))).isEqualTo(successor);
        }
    }

    @Test
    void fromPayload_readsAPayloadWithoutAContract_asVersionOne_andRefusesANewerOne() throws Exception {
        BucketInput first = BucketInput.first(Bucket.containing("orders", BucketLevel.MINUTE, NOW.getEpochSecond() + 90), "expires", NOW);
        Map<String, Object> unversioned = payload(first);
        unversioned.remove("contract");
        Map<String, Object> newer = payload(first);
        newer.put("contract", 2);

        assertThat(payload(first)).containsEntry("contract", 1);
        assertThat(BucketInput.fromPayload(unversioned)).isEqualTo(first);
        assertThatThrownBy(() -> BucketInput.fromPayload(newer))
                .hasMessageContaining("expire-bucket execution input and bucket step payload (contract BUCKET_INPUT)")
                .hasMessageContaining("version 2");
    }

    @Test
    void fromPayload_whenEmpty_saysWhatItExpected() {
        assertThatThrownBy(() -> BucketInput.fromPayload(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expire-bucket execution's input");
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(nullValues = "null", value = {
            "table, null, 'table' must be a non-empty string",
            "table, '', 'table' must be a non-empty string",
            "ttlAttribute, null, 'ttlAttribute' must be a non-empty string",
            "level, week, unknown bucket level 'week'",
            "level, null, 'level' must be a non-empty string",
            "bucketStart, 2027-01-15 08:00:00, 'bucketStart' must be an RFC 3339 instant, got '2027-01-15 08:00:00'",
            "bucketStart, 2027-01-15T08:00:30Z, a minute bucket starts on a multiple of 60 s",
            "wakeAt, tomorrow, 'wakeAt' must be an RFC 3339 instant, got 'tomorrow'",
            "hop, null, 'hop' must be a number, got null",
            "hop, '1', 'hop' must be a number, got 1",
            "from, '1', 'from' must be a number, got 1",
            "until, '1', 'until' must be a number, got 1"})
    void fromPayload_whenAFieldIsMissingOrMalformed_namesIt(String field, String value, String message) throws Exception {
        Map<String, Object> payload = payload(BucketInput.first(Bucket.containing("orders", BucketLevel.MINUTE, NOW.getEpochSecond() + 600),
                "ttl", NOW));
        assertThat(payload).containsKeys(BucketWorkflow.TABLE, BucketWorkflow.TTL_ATTRIBUTE, BucketWorkflow.LEVEL,
                BucketWorkflow.BUCKET_START, BucketWorkflow.WAKE_AT, BucketWorkflow.HOP);
        payload.put(field, value);

        assertThatThrownBy(() -> BucketInput.fromPayload(payload)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void minuteParts_mainFromAfterItsPlannedWake_earlyBeforeIt_eachNamedAndReadBackThroughEveryGeneration() throws Exception {
        Bucket minute = Bucket.containing("orders", BucketLevel.MINUTE, NOW.getEpochSecond() + 600);
        BucketInput main = BucketInput.planned(minute, "ttl", NOW, minute.start() + 30);
        BucketInput early = BucketInput.early(minute, "ttl", NOW, main.from());

        assertThat(main.wakeAt()).isEqualTo(Instant.ofEpochSecond(minute.start() + 19));
        assertThat(main.from()).as("the second after its wake").isEqualTo(minute.start() + 20);
        assertThat(main.until()).isEqualTo(minute.end());
        assertThat(main.part()).isEqualTo(MinutePart.MAIN);
        assertThat(main.executionName()).isEqualTo(minute.executionName());
        assertThat(main.toJson()).contains("\"from\":" + (minute.start() + 20)).doesNotContain("\"until\"");
        assertThat(early.part()).isEqualTo(MinutePart.EARLY);
        assertThat(early.from()).isEqualTo(minute.start());
        assertThat(early.until()).isEqualTo(minute.start() + 20);
        assertThat(early.wakeAt()).as("a second before the minute: as early as it can").isEqualTo(minute.naturalWake());
        assertThat(early.executionName()).isEqualTo(minute.executionName() + "-e");
        BucketInput earlySuccessor = early.nextGeneration(NOW, java.time.Duration.ZERO);
        assertThat(earlySuccessor.executionName()).isEqualTo(minute.executionName() + "-e-g1");
        assertThat(earlySuccessor.until()).isEqualTo(early.until());
        assertThat(main.nextGeneration(NOW, java.time.Duration.ZERO).from()).as("every generation works the same seconds")
                .isEqualTo(main.from());
        for (BucketInput input : java.util.List.of(main, early, earlySuccessor, main.nextGeneration(NOW, java.time.Duration.ZERO))) {
            assertThat(BucketInput.fromPayload(payload(input))).isEqualTo(input);
            assertThat(BucketInput.fromIn(input.toJson(), minute)).isEqualTo(input.from());
        }
        assertThat(BucketInput.planned(minute, "ttl", NOW, minute.start() + 5).toJson())
                .as("planned for the minute's start: the input it always had").doesNotContain("\"from\"")
                .isEqualTo(BucketInput.first(minute, "ttl", NOW).toJson());
        assertThat(BucketInput.fromIn("{\"other\":1}", minute)).as("an input it cannot read: trusted with nothing").isEqualTo(minute.end());
    }

    /**
     * What follows an execution that ended works the seconds that execution held: a minute another party
     * planned for another second gives its {@code from}; an input of the other part, of the same seconds,
     * of seconds no runner of the minute works, or one that holds none, leaves this input as it was.
     */
    @Test
    void withSecondsOf_takesTheSecondsAnotherInputOfTheSamePartHeld_andNothingFromAnotherPart() {
        Bucket minute = Bucket.containing("orders", BucketLevel.MINUTE, NOW.getEpochSecond() + 600);
        BucketInput mine = BucketInput.planned(minute, "ttl", NOW, minute.start() + 40);
        BucketInput theirs = BucketInput.planned(minute, "ttl", NOW, minute.start() + 20);
        assertThat(theirs.from()).isLessThan(mine.from());

        BucketInput held = mine.withSecondsOf(theirs.toJson());

        assertThat(held).returns(theirs.from(), BucketInput::from).returns(theirs.until(), BucketInput::until)
                .returns(mine.wakeAt(), BucketInput::wakeAt);
        assertThat(mine.withSecondsOf(BucketInput.early(minute, "ttl", NOW, mine.from()).toJson()))
                .as("the early part's seconds are not the main part's").isSameAs(mine);
        assertThat(mine.withSecondsOf(mine.toJson())).isSameAs(mine);
        assertThat(mine.withSecondsOf("{}")).isSameAs(mine);
        String beyondTheMinute = theirs.toJson().replace("\"from\":" + theirs.from(), "\"from\":" + (minute.end() + 5));
        assertThat(beyondTheMinute).isNotEqualTo(theirs.toJson());
        assertThat(mine.withSecondsOf(beyondTheMinute)).as("seconds no runner of the minute works").isSameAs(mine);
    }

    @Test
    void partsOutsideTheirMinute_orOfAnotherLevel_areRefused() {
        Bucket minute = Bucket.containing("orders", BucketLevel.MINUTE, NOW.getEpochSecond() + 600);
        Bucket hour = Bucket.containing("orders", BucketLevel.HOUR, NOW.getEpochSecond() + 7_200);
        assertThatThrownBy(() -> new BucketInput(hour, "ttl", NOW, 0, 0, hour.start() + 60, hour.end()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketInput(minute, "ttl", NOW, 0, 0, minute.start() + 10, minute.start() + 20))
                .as("neither the main part nor the early one").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketInput(minute, "ttl", NOW, 0, 0, minute.start() + 20, minute.start() + 20))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketInput(minute, "ttl", NOW, 0, 0, minute.start(), minute.end() + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
