package dev.punctual.statemachine;

/**
 * Builds Step Functions ARNs, the one place their format is written: the stream handler names the
 * executions it stops and describes, the local engine names what it creates, and the trial and the
 * tests name the executions they read.
 */
public final class Arns {

    private static final String STATE_MACHINE = ":stateMachine:";
    private static final String EXECUTION = ":execution:";
    private static final String EXPRESS = ":express:";

    private Arns() {
    }

    /** {@code arn:<partition>:states:<region>:<account>:stateMachine:<name>}. */
    public static String stateMachine(String partition, String region, String account, String name) {
        return base(partition, region, account) + STATE_MACHINE.substring(1) + name;
    }

    /** {@code arn:<partition>:states:<region>:<account>:execution:<stateMachineName>:<executionName>}. */
    public static String execution(String partition, String region, String account, String stateMachineName,
            String executionName) {
        return base(partition, region, account) + EXECUTION.substring(1) + stateMachineName + ":" + executionName;
    }

    /**
     * {@code arn:<partition>:states:<region>:<account>:express:<stateMachineName>:<executionName>:<id>}: an
     * Express execution's ARN. Express executions may share a name, so the ARN ends in an id of its own.
     */
    public static String expressExecution(String partition, String region, String account, String stateMachineName,
            String executionName, String id) {
        return base(partition, region, account) + EXPRESS.substring(1) + stateMachineName + ":" + executionName + ":" + id;
    }

    /** Whether {@code executionArn} names an Express execution ({@code :express:} where a Standard one has {@code :execution:}). */
    public static boolean isExpressExecution(String executionArn) {
        String[] fields = executionArn.split(":", 7);
        return fields.length == 7 && "arn".equals(fields[0]) && "express".equals(fields[5]);
    }

    /**
     * The ARN of the execution named {@code executionName} of the state machine {@code stateMachineArn}:
     * the same partition, region and account, and the state machine's name.
     *
     * @throws IllegalArgumentException if {@code stateMachineArn} is not a state machine ARN
     */
    public static String execution(String stateMachineArn, String executionName) {
        int resource = stateMachineArn.indexOf(STATE_MACHINE);
        if (!stateMachineArn.startsWith("arn:") || resource < 0) {
            throw new IllegalArgumentException("Not a state machine ARN: " + stateMachineArn
                    + " (expected arn:<partition>:states:<region>:<account>:stateMachine:<name>)");
        }
        return stateMachineArn.substring(0, resource) + EXECUTION + stateMachineArn.substring(resource + STATE_MACHINE.length())
                + ":" + executionName;
    }

    private static String base(String partition, String region, String account) {
        return "arn:" + partition + ":states:" + region + ":" + account + ":";
    }
}
