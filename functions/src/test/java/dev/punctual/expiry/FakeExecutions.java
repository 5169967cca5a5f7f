package dev.punctual.expiry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Step Functions' execution bookkeeping as the API shows it: a name is held by one execution; a
 * start with the name and input of a running execution returns it again; any other start of a held
 * name is {@code ExecutionAlreadyExists}; a stop ends a running execution and is a no-op on a
 * closed one. Records every call, and fails the calls it is told to.
 */
public final class FakeExecutions implements Executions {

    /** One execution as the fake holds it. */
    public record Execution(String input, Status status, Instant stopDate) {
    }

    private final Map<String, Execution> executions = new HashMap<>();
    private final List<String> calls = new ArrayList<>();
    private final Map<String, String> inputs = new HashMap<>();
    private Predicate<String> failStarts = name -> false;
    private RuntimeException failure;
    private Instant nextStopDate = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public synchronized StartResult start(String name, String inputJson) {
        calls.add("start " + name);
        if (failStarts.test(name)) {
            throw failure;
        }
        Execution held = executions.get(name);
        if (held == null) {
            executions.put(name, new Execution(inputJson, Status.RUNNING, null));
            inputs.put(name, inputJson);
            return StartResult.STARTED;
        }
        return held.status() == Status.RUNNING && held.input().equals(inputJson) ? StartResult.STARTED : StartResult.NAME_TAKEN;
    }

    @Override
    public synchronized Holder describe(String name) {
        calls.add("describe " + name);
        Execution held = executions.get(name);
        return held == null ? new Holder(Status.MISSING, null) : new Holder(held.status(), held.stopDate());
    }

    @Override
    public synchronized StopResult stop(String name) {
        calls.add("stop " + name);
        Execution held = executions.get(name);
        if (held == null) {
            return StopResult.NOT_FOUND;
        }
        if (held.status() == Status.RUNNING) {
            close(name, Status.CLOSED);
        }
        return StopResult.STOPPED;
    }

    /** Ends a running execution as the workflow would (CLOSED: expired or superseded; CONTINUED: hopped). */
    public synchronized void close(String name, Status status) {
        Execution held = executions.get(name);
        executions.put(name, new Execution(held.input(), status, nextStopDate));
        nextStopDate = nextStopDate.plusSeconds(1);
    }

    /** Makes every start of a name matching {@code names} throw {@code error}. */
    public synchronized void failStarts(Predicate<String> names, RuntimeException error) {
        this.failStarts = names;
        this.failure = error;
    }

    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    public synchronized void clearCalls() {
        calls.clear();
    }

    /** The input the execution named {@code name} was started with. */
    public synchronized String input(String name) {
        return inputs.get(name);
    }

    public synchronized Map<String, Execution> executions() {
        return Map.copyOf(executions);
    }
}
