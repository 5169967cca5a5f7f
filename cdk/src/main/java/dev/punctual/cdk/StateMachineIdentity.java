package dev.punctual.cdk;

import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.Names;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.UniqueResourceNameOptions;
import software.constructs.Construct;

/**
 * The name and ARNs of the state machine a mode creates, fixed at synthesis. Per item the workflow starts
 * its own successors ({@code $$.StateMachine.Id}); windowed, the bucket function starts executions of the
 * machine that invokes it. Either way a role must name the machine's ARN, and a name fixed at synthesis
 * builds that ARN without referring to the resource (which would be a reference cycle).
 *
 * @param name unique per stack
 * @param suffix what the name ends in: the mode's (windowed: {@code -bucket}), so switching a deployed
 *     construct's mode never creates a machine under a name the old one still holds
 * @param arn the machine's ARN
 * @param executionsArn every execution of the machine ({@code execution:<name>:*})
 * @param expressExecutionsArn every execution of the machine as an Express machine's executions are named
 *     ({@code express:<name>:*})
 */
record StateMachineIdentity(String name, String suffix, String arn, String executionsArn, String expressExecutionsArn) {

    /** Longest state machine name Step Functions accepts. */
    private static final int MAX_STATE_MACHINE_NAME = 80;

    /**
     * A name ending in {@code suffix}: the props' {@link PunctualExpiryProps#stateMachineBaseName() base
     * name} when set (the packaged template's), else one unique to {@code scope} within its stack.
     */
    static StateMachineIdentity unique(Construct scope, PunctualExpiryProps props, String suffix) {
        String name = props.stateMachineBaseName().orElseGet(() -> Names.uniqueResourceName(scope,
                UniqueResourceNameOptions.builder().maxLength(MAX_STATE_MACHINE_NAME - suffix.length())
                        .separator("-").allowedSpecialCharacters("-_").build())) + suffix;
        Stack stack = Stack.of(scope);
        return new StateMachineIdentity(name, suffix,
                stack.formatArn(ArnComponents.builder().service("states").resource("stateMachine")
                        .resourceName(name).arnFormat(ArnFormat.COLON_RESOURCE_NAME).build()),
                stack.formatArn(ArnComponents.builder().service("states").resource("execution")
                        .resourceName(name + ":*").arnFormat(ArnFormat.COLON_RESOURCE_NAME).build()),
                stack.formatArn(ArnComponents.builder().service("states").resource("express")
                        .resourceName(name + ":*").arnFormat(ArnFormat.COLON_RESOURCE_NAME).build()));
    }

    /**
     * Another machine of the same construct, named after this one: ending in this one's suffix, then
     * {@code more} (the backfill's {@code -backfill}, the bucket runner's {@code -runner}), so it too follows
     * the mode.
     */
    StateMachineIdentity beside(Construct scope, PunctualExpiryProps props, String more) {
        return unique(scope, props, suffix + more);
    }
}
