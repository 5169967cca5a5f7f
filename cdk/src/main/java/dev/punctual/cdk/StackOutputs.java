package dev.punctual.cdk;

import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Stack;

/** The outputs an operator needs after deploying: what to write to, what to watch, where failures go. */
final class StackOutputs {

    private StackOutputs() {
    }

    static void add(Stack stack, String tableName, PunctualExpiry expiry) {
        CfnOutput.Builder.create(stack, "TableName").value(tableName).build();
        CfnOutput.Builder.create(stack, "StateMachineArn").value(expiry.stateMachine().getStateMachineArn())
                .description("aws stepfunctions list-executions --status-filter RUNNING --state-machine-arn <this>")
                .build();
        CfnOutput.Builder.create(stack, "FunctionName").value(expiry.function().getFunctionName()).build();
        CfnOutput.Builder.create(stack, "DeadLetterQueueUrl").value(expiry.deadLetterQueue().getQueueUrl()).build();
        CfnOutput.Builder.create(stack, "BackfillStateMachineArn").value(expiry.backfill().stateMachine().getStateMachineArn())
                .description("aws stepfunctions start-execution --state-machine-arn <this> --input '{\"table\":\"" + tableName
                        + "\"}' schedules the items the table already holds")
                .build();
        CfnOutput.Builder.create(stack, "BackfillProgressTableName").value(expiry.backfill().progressTable().getTableName())
                .description("Where each backfill segment stands: partition <table>; punctual backfill --progress-table <this>")
                .build();
        expiry.scheduleIndex().ifPresent(index -> CfnOutput.Builder.create(stack, "ScheduleIndexTableName")
                .value(index.getTableName())
                .description("Windowed mode: a bucket's pending items, by partition <table>|<minute start epoch>")
                .build());
    }
}
