package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExpiryWorkflowTest {

    @Test
    void outcomeOf_readsTheOutcomeField() {
        assertThat(ExpiryWorkflow.outcomeOf("{\"outcome\":\"ContinuedAsNew\",\"successor\":\"arn:x\"}"))
                .contains(ExpiryWorkflow.OUTCOME_CONTINUED);
        assertThat(ExpiryWorkflow.outcomeOf("{\"outcome\":\"Expired\"}")).contains(ExpiryWorkflow.OUTCOME_EXPIRED);
    }

    @Test
    void outcomeOf_whenNoOutputNoJsonOrNoStringOutcome_isEmpty() {
        assertThat(ExpiryWorkflow.outcomeOf(null)).isEmpty();
        assertThat(ExpiryWorkflow.outcomeOf("not json")).isEmpty();
        assertThat(ExpiryWorkflow.outcomeOf("{\"items\":3}")).isEmpty();
        assertThat(ExpiryWorkflow.outcomeOf("{\"outcome\":{\"nested\":true}}")).isEmpty();
    }
}
