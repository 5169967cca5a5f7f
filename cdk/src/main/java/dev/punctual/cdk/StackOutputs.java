package dev.punctual.cdk;

import java.util.Optional;
import software.amazon.awscdk.CfnCondition;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.dynamodb.Table;

/** The outputs an operator needs after deploying: what to write to, what to watch, where failures go. */
final class StackOutputs {

    private StackOutputs() {
    }

    static void add(Stack stack, String tableName, PunctualExpiry expiry) {
        add(stack, tableName, expiry.stateMachine().getStateMachineArn(), expiry.function().getFunctionName(),
                expiry.deadLetterQueue().getQueueUrl(), expiry.backfill().stateMachine().getStateMachineArn(),
                expiry.backfill().progressTable().getTableName(), expiry.scheduleIndex().map(Table::getTableName), null);
    }

    /**
     * The same outputs from values (the packaged template chooses each by its mode), the schedule index's
     * only where {@code scheduleIndexCondition} holds when one is given.
     */
    static void add(Stack stack, String tableName, String stateMachineArn, String functionName,
            String deadLetterQueueUrl, String backfillStateMachineArn, String backfillProgressTableName,
            Optional<String> scheduleIndexTableName, CfnCondition scheduleIndexCondition) {
        CfnOutput.Builder.create(stack, "TableName").value(tableName).build();
        CfnOutput.Builder.create(stack, "StateMachineArn").value(stateMachineArn)
                .description("aws stepfunctions list-executions --status-filter RUNNING --state-machine-arn <this>")
                .build();
        CfnOutput.Builder.create(stack, "FunctionName").value(functionName).build();
        CfnOutput.Builder.create(stack, "DeadLetterQueueUrl").value(deadLetterQueueUrl).build();
        CfnOutput.Builder.create(stack, "BackfillStateMachineArn").value(backfillStateMachineArn)
                .description("aws stepfunctions start-execution --state-machine-arn <this> --input '{\"table\":\"<table>\"}'"
                        + " schedules the items the table already holds")
                .build();
        CfnOutput.Builder.create(stack, "BackfillProgressTableName").value(backfillProgressTableName)
                .description("Where each backfill segment stands: partition <table>; punctual backfill --progress-table <this>")
                .build();
        scheduleIndexTableName.ifPresent(name -> CfnOutput.Builder.create(stack, "ScheduleIndexTableName")
                .value(name)
                .description("Windowed mode: a bucket's pending items, by partition <table>|<minute start epoch>")
                .condition(scheduleIndexCondition)
                .build());
    }
}
