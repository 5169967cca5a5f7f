package dev.punctual.local.stepfunctions.asl.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * The answers an execution's Task states get instead of calling their resources: AWS Step Functions
 * Local's mocked service integrations, chosen per execution by a test case. One instance belongs to
 * one execution and counts each mocked state's invocations, retries and loops through the state alike
 * ("a mocked response for every invocation", the developer guide's <em>Configuration file for mocked
 * service integrations</em>).
 */
public interface TaskMocks {

    /** No Task is mocked: every one calls its resource. */
    TaskMocks NONE = stateName -> Optional.empty();

    /**
     * The answer for the next invocation of the Task state {@code stateName}, or empty when the test
     * case does not mock that state (it calls its resource, as Step Functions Local's "hybrid" paths do).
     *
     * @throws dev.punctual.local.stepfunctions.asl.errors.StatesRuntimeError when the state is mocked but
     *     this invocation has no response: AWS documents that the execution then fails
     */
    Optional<Answer> nextInvocation(String stateName);

    /** One mocked invocation's answer: the service's result ({@code Return}) or its error ({@code Throw}). */
    sealed interface Answer permits Returned, Thrown {
    }

    /** {@code Return}: the Task's result, as the service would have answered. */
    record Returned(JsonNode result) implements Answer {
    }

    /** {@code Throw}: the Task fails with this error name and cause, which Retry and Catch match. */
    record Thrown(String error, String cause) implements Answer {
    }
}
