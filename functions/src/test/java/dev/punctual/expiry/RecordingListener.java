package dev.punctual.expiry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Hears every change as one line: {@code "<seq> <OUTCOME>"}, {@code "<seq> failed <message>"} or {@code "<seq> skipped after <seq>"}. */
public final class RecordingListener implements ChangeProcessor.Listener {

    private final List<String> heard = Collections.synchronizedList(new ArrayList<>());

    /** What was heard so far, in the order heard. */
    public List<String> heard() {
        return heard;
    }

    @Override
    public void decided(StreamChange change, Plan plan, Scheduled scheduled) {
        heard.add(change.sequenceNumber() + " " + scheduled.outcome().name());
    }

    @Override
    public void failed(StreamChange change, Plan plan, RuntimeException error) {
        heard.add(change.sequenceNumber() + " failed " + error.getMessage());
    }

    @Override
    public void skipped(StreamChange change, String failedSequenceNumber) {
        heard.add(change.sequenceNumber() + " skipped after " + failedSequenceNumber);
    }
}
