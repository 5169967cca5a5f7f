package dev.punctual.windowed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.expiry.AttributeText;
import dev.punctual.expiry.AttributeType;
import dev.punctual.expiry.ItemKey;
import dev.punctual.statemachine.BucketWorkflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The runner's state between two steps: what {@link RunnerState#toPayload} hands the runner, read back by
 * {@link RunnerState#fromPayload} from the payload the Lambda runtime deserializes, and how much of a
 * second's entries it carries.
 */
class RunnerStateTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long SECOND = 1_800_000_030L;

    /** The payload as the runner carries it through JSON: what the next step's function receives. */
    private static Object throughJson(RunnerState state) throws Exception {
        return JSON.readValue(JSON.writeValueAsString(state.toPayload()), new TypeReference<LinkedHashMap<String, Object>>() { });
    }

    @Test
    void aDeleteStep_withItsEntriesOfEveryKeyType_isReadBackAsItWasWritten() throws Exception {
        Map<String, AttributeText> composite = new LinkedHashMap<>();
        composite.put("pk", new AttributeText(AttributeType.S, "order#7"));
        composite.put("sk", new AttributeText(AttributeType.N, "42"));
        List<IndexEntry> entries = List.of(
                new IndexEntry(ItemKey.of(composite), "1800000030", SECOND),
                new IndexEntry(ItemKey.of(Map.of("id", new AttributeText(AttributeType.B, "AAEC"))), "1800000030.5", SECOND));
        RunnerState state = new RunnerState(RunnerState.Phase.DELETE, SECOND, Instant.ofEpochSecond(SECOND), entries,
                SECOND + 7, new RunnerState.Counts(5, 3, 2, 4));

        RunnerState back = RunnerState.fromPayload(throughJson(state));

        assertThat(back).isEqualTo(state);
        assertThat(back.entries()).extracting(IndexEntry::due).containsOnly(SECOND);
        assertThat(state.toPayload()).containsEntry(BucketWorkflow.RUNNER_PHASE, "delete")
                .containsEntry(BucketWorkflow.RUNNER_AT, "2027-01-15T08:00:30Z")
                .containsEntry(BucketWorkflow.RUNNER_NEXT, SECOND + 7)
                .containsEntry(BucketWorkflow.SECONDS, 4);
    }

    @Test
    void aPrepareStep_orOneWhoseEntriesDidNotFit_carriesNoEntries_andIsReadBackWithout() throws Exception {
        RunnerState prepare = new RunnerState(RunnerState.Phase.PREPARE, SECOND, Instant.ofEpochSecond(SECOND - 1), null,
                SECOND + 30, RunnerState.Counts.NONE);

        assertThat(prepare.toPayload()).doesNotContainKey(BucketWorkflow.RUNNER_ENTRIES);
        assertThat(RunnerState.fromPayload(throughJson(prepare))).isEqualTo(prepare);
        assertThat(RunnerState.fromPayload(null)).as("a runner's first step has no state").isNull();
    }

    @Test
    void entriesUpToTheLimit_areCarried_oneByteMore_areNot() {
        // Each entry counts its key's DynamoDB JSON, its TTL text and 24 bytes.
        ItemKey key = ItemKey.of(Map.of("id", new AttributeText(AttributeType.S, "k")));
        int per = key.toDynamoJson().length() + "1".length() + 24;
        List<IndexEntry> exactly = new ArrayList<>();
        for (int bytes = 0; bytes + per <= RunnerState.MAX_CARRIED_BYTES; bytes += per) {
            exactly.add(new IndexEntry(key, "1", SECOND));
        }
        int spare = RunnerState.MAX_CARRIED_BYTES - exactly.size() * per;
        // The last entry grown by what is left: the entries add up to the limit exactly, or a byte more.
        List<IndexEntry> atTheLimit = new ArrayList<>(exactly.subList(0, exactly.size() - 1));
        atTheLimit.add(new IndexEntry(key, "1".repeat(1 + spare), SECOND));
        List<IndexEntry> overIt = new ArrayList<>(exactly.subList(0, exactly.size() - 1));
        overIt.add(new IndexEntry(key, "1".repeat(2 + spare), SECOND));

        assertThat(RunnerState.carried(atTheLimit)).as("exactly the limit").isSameAs(atTheLimit);
        assertThat(RunnerState.carried(overIt)).as("a byte over it").isNull();
        assertThat(RunnerState.carried(List.of())).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "not an object|'runner state must be an object'",
            "{\"phase\":\"wait\",\"target\":1,\"at\":\"2027-01-15T08:00:30Z\",\"next\":2,\"items\":0,\"expired\":0,\"superseded\":0,\"seconds\":0}|'phase' must be 'prepare' or 'delete'",
            "{\"phase\":\"delete\",\"target\":1,\"at\":\"soon\",\"next\":2,\"items\":0,\"expired\":0,\"superseded\":0,\"seconds\":0}|'at' must be an RFC 3339 instant",
            "{\"phase\":\"delete\",\"target\":\"1\",\"at\":\"2027-01-15T08:00:30Z\",\"next\":2,\"items\":0,\"expired\":0,\"superseded\":0,\"seconds\":0}|'target' must be a number",
            "{\"phase\":\"delete\",\"target\":1,\"at\":\"2027-01-15T08:00:30Z\",\"next\":2,\"items\":0,\"expired\":0,\"superseded\":0,\"seconds\":0,\"entries\":[{\"key\":{\"id\":{\"S\":\"a\"}}}]}|runner entry must be {key, ttl}",
            "{\"phase\":\"delete\",\"target\":1,\"at\":\"2027-01-15T08:00:30Z\",\"next\":2,\"items\":0,\"expired\":0,\"superseded\":0,\"seconds\":0,\"entries\":[{\"key\":[],\"ttl\":\"1\"}]}|runner entry must be {key, ttl}",
            "{\"phase\":\"delete\",\"target\":1,\"at\":\"2027-01-15T08:00:30Z\",\"next\":2,\"items\":0,\"expired\":0,\"superseded\":0,\"seconds\":0,\"entries\":[{\"key\":{\"id\":\"a\"},\"ttl\":\"1\"}]}|key attribute id must be {type: text}",
            "{\"phase\":\"delete\",\"target\":1,\"at\":\"2027-01-15T08:00:30Z\",\"next\":2,\"items\":0,\"expired\":0,\"superseded\":0,\"seconds\":0,\"entries\":[{\"key\":{\"id\":{\"S\":\"a\",\"N\":\"1\"}},\"ttl\":\"1\"}]}|key attribute id must be {type: text}",
            "{\"phase\":\"delete\",\"target\":1,\"at\":\"2027-01-15T08:00:30Z\",\"next\":2,\"items\":0,\"expired\":0,\"superseded\":0,\"seconds\":0,\"entries\":[{\"key\":{\"id\":{\"X\":\"a\"}},\"ttl\":\"1\"}]}|has an unknown type X"})
    void aMalformedState_isRefused_namingWhatIsWrong(String text, String message) throws Exception {
        Object payload = text.startsWith("{") ? JSON.readValue(text, new TypeReference<LinkedHashMap<String, Object>>() { }) : text;

        assertThatThrownBy(() -> RunnerState.fromPayload(payload)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }
}
