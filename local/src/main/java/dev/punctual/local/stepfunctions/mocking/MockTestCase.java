package dev.punctual.local.stepfunctions.mocking;

import dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError;
import dev.punctual.local.stepfunctions.asl.run.TaskMocks;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One test case of a {@link MockConfiguration}: which Task states of one state machine are mocked, and
 * each one's answers by invocation.
 */
public final class MockTestCase {

    private final String stateMachineName;
    private final String name;
    private final Map<String, List<TaskMocks.Answer>> answersByState;

    MockTestCase(String stateMachineName, String name, Map<String, List<TaskMocks.Answer>> answersByState) {
        this.stateMachineName = stateMachineName;
        this.name = name;
        this.answersByState = Map.copyOf(answersByState);
    }

    public String name() {
        return name;
    }

    public String stateMachineName() {
        return stateMachineName;
    }

    /**
     * The mocks of one execution run with this test case: each mocked state's invocations are counted
     * from 0 for that execution, across retries, loops back to the state and Map iterations (AWS's note on
     * Map states: with more than one iteration at once, which iteration gets which response is not fixed).
     */
    public TaskMocks forExecution() {
        Map<String, AtomicInteger> invocations = new ConcurrentHashMap<>();
        return stateName -> {
            List<TaskMocks.Answer> answers = answersByState.get(stateName);
            if (answers == null) {
                return Optional.empty();
            }
            int invocation = invocations.computeIfAbsent(stateName, s -> new AtomicInteger()).getAndIncrement();
            if (invocation >= answers.size()) {
                throw new StatesRuntimeError("The test case '" + name + "' of the mock configuration gives the state '"
                        + stateName + "' " + answers.size() + " mocked response(s); invocation " + invocation
                        + " has none");
            }
            return Optional.of(answers.get(invocation));
        };
    }
}
