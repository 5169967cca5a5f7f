package com.example.orders;

import dev.punctual.cdk.PunctualExpiry;
import dev.punctual.cdk.PunctualExpiryProps;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;

/**
 * Attaches Punctual to an existing table, {@code orders}, whose stream (NEW_AND_OLD_IMAGES) and native
 * TTL on {@code expiresAt} are already on. Pass the stream ARN with {@code -c tableStreamArn=...}.
 */
public final class OrdersApp {

    public static void main(String[] args) {
        App app = new App();
        Stack stack = new Stack(app, "OrdersExpiry");
        String streamArn = (String) app.getNode().tryGetContext("tableStreamArn");
        new PunctualExpiry(stack, "Expiry", PunctualExpiryProps.builder()
                .table(PunctualExpiry.importTable(stack, "Orders", "orders", streamArn))
                .ttlAttribute("expiresAt")
                .build());
        app.synth();
    }
}
