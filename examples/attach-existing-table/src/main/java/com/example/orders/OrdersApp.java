package com.example.orders;

import dev.punctual.cdk.PunctualExpiry;
import dev.punctual.cdk.PunctualExpiryProps;
import software.amazon.awscdk.App;
import software.amazon.awscdk.CfnOutput;
import software.amazon.awscdk.Stack;

/**
 * Attaches Punctual to an existing table, {@code orders}, whose stream (NEW_AND_OLD_IMAGES) and native
 * TTL on {@code expiresAt} are already on. Pass the stream ARN with {@code -c tableStreamArn=...}.
 * The items already in the table are scheduled by the backfill workflow on first deploy; the stack's
 * outputs name its state machine and progress table.
 */
public final class OrdersApp {

    public static void main(String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "OrdersExpiry");
        String streamArn = (String) app.getNode().tryGetContext("tableStreamArn");
        PunctualExpiry expiry = new PunctualExpiry(stack, "Expiry", PunctualExpiryProps.builder()
                .table(PunctualExpiry.importTable(stack, "Orders", "orders", streamArn))
                .ttlAttribute("expiresAt")
                .build());
        // The items the table held before the construct was attached are scheduled by the backfill
        // workflow, which runs once on first deploy; these outputs start it again and find it in the console.
        CfnOutput.Builder.create(stack, "BackfillStateMachineArn")
                .description("Start a backfill again: aws stepfunctions start-execution --state-machine-arn <this>"
                        + " --input '{\"table\":\"orders\"}'")
                .value(expiry.backfill().stateMachine().getStateMachineArn())
                .build();
        CfnOutput.Builder.create(stack, "BackfillProgressTableName")
                .description("Where each backfill run keeps its segments' progress")
                .value(expiry.backfill().progressTable().getTableName())
                .build();
        app.synth();
    }
}
