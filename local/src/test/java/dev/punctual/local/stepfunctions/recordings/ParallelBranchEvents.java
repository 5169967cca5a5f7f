package dev.punctual.local.stepfunctions.recordings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * What the recordings of Parallel states went through before they were stored: the branches' events run
 * at once, so the recording test made their order irrelevant. Read from the recordings themselves: the
 * events between a {@code ParallelStateStarted} and the next Parallel closing event are the branches'
 * (their ids stored as {@code [0]}), and where a {@code ParallelStateExited} follows a
 * {@code ParallelStateSucceeded}, the recording keeps the branches' events once more in place of that
 * {@code ParallelStateSucceeded}, which is gone from it (the stored list is one event shorter).
 * {@link #markAsRecorded} does the same to our history; {@link #sortRuns} puts each run of branch events
 * in one order on both sides.
 */
final class ParallelBranchEvents {

    private static final Set<String> CLOSING = Set.of("ParallelStateSucceeded", "ParallelStateAborted",
            "ParallelStateExited", "ParallelStateFailed");

    private ParallelBranchEvents() {
    }

    static void markAsRecorded(ArrayNode events) {
        int start = -1;
        List<JsonNode> branch = new ArrayList<>();
        boolean inBranch = false;
        for (int i = 0; i < events.size(); i++) {
            String type = events.get(i).path("type").asText();
            if (CLOSING.contains(type)) {
                if (start >= 0) {
                    // the stored list holds the branch events from start up to here, whatever was there
                    for (int j = i - 1; j >= start; j--) {
                        events.remove(j);
                    }
                    for (int j = 0; j < branch.size(); j++) {
                        events.insert(start + j, branch.get(j));
                    }
                    i = start + branch.size();
                }
                inBranch = false;
            } else if ("ParallelStateStarted".equals(type)) {
                inBranch = true;
                branch = new ArrayList<>();
                start = i + 1;
            } else if (inBranch) {
                ObjectNode event = (ObjectNode) events.get(i);
                event.set("id", JsonNodeFactory.instance.arrayNode().add(0));
                branch.add(event);
            }
        }
    }

    /** Sorts each run of branch events ({@code "branch": true}) by its text, in place. */
    static void sortRuns(List<JsonNode> events) {
        int i = 0;
        while (i < events.size()) {
            if (!events.get(i).path("branch").asBoolean()) {
                i++;
                continue;
            }
            int end = i;
            while (end < events.size() && events.get(end).path("branch").asBoolean()) {
                end++;
            }
            events.subList(i, end).sort(Comparator.comparing(JsonNode::toString));
            i = end;
        }
    }
}
