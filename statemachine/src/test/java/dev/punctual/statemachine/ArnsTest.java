package dev.punctual.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ArnsTest {

    @Test
    void stateMachineAndExecution_followAwsFormat() {
        assertThat(Arns.stateMachine("aws-cn", "cn-north-1", "123456789012", "expire-item"))
                .isEqualTo("arn:aws-cn:states:cn-north-1:123456789012:stateMachine:expire-item");
        assertThat(Arns.execution("aws", "us-east-1", "123456789012", "expire-item", "n-1"))
                .isEqualTo("arn:aws:states:us-east-1:123456789012:execution:expire-item:n-1");
    }

    @Test
    void executionOfAStateMachineArn_keepsItsPartitionRegionAccountAndName() {
        String machine = Arns.stateMachine("aws-us-gov", "us-gov-west-1", "000000000000", "punctual-expire-bucket");

        assertThat(Arns.execution(machine, "20260101T000000Z-second-t-abc"))
                .isEqualTo(Arns.execution("aws-us-gov", "us-gov-west-1", "000000000000", "punctual-expire-bucket",
                        "20260101T000000Z-second-t-abc"));
        assertThatThrownBy(() -> Arns.execution("arn:aws:lambda:us-east-1:1:function:f", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Not a state machine ARN");
    }

    @Test
    void expressExecution_endsInItsOwnId_andIsToldApartFromAStandardOne() {
        String express = Arns.expressExecution("aws", "us-east-1", "123456789012", "punctual-run-bucket", "n-1", "4f1c");

        assertThat(express).isEqualTo("arn:aws:states:us-east-1:123456789012:express:punctual-run-bucket:n-1:4f1c");
        assertThat(Arns.isExpressExecution(express)).isTrue();
        assertThat(Arns.isExpressExecution(Arns.execution("aws", "us-east-1", "123456789012", "express", "n-1")))
                .as("a Standard machine named 'express'").isFalse();
    }
}
