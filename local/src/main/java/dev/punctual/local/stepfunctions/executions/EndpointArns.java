package dev.punctual.local.stepfunctions.executions;

import dev.punctual.statemachine.Arns;

/**
 * Parses the ARNs of one local Step Functions endpoint (one partition, region and account) into the
 * engine's errors, and names what the endpoint creates through {@link Arns},
 * where the format is written.
 */
final class EndpointArns {

    private final String partition;
    private final String region;
    private final String accountId;

    EndpointArns(String partition, String region, String accountId) {
        this.partition = partition;
        this.region = region;
        this.accountId = accountId;
    }

    String region() {
        return region;
    }

    String stateMachine(String name) {
        return Arns.stateMachine(partition, region, accountId, name);
    }

    String execution(String stateMachineName, String executionName) {
        return Arns.execution(partition, region, accountId, stateMachineName, executionName);
    }

    String expressExecution(String stateMachineName, String executionName, String id) {
        return Arns.expressExecution(partition, region, accountId, stateMachineName, executionName, id);
    }

    /** The state machine name in {@code arn}; an ARN of another region or account names none here. */
    String stateMachineName(String arn) {
        String[] parts = split(arn, "stateMachine", 7);
        if (!stateMachine(parts[6]).equals(arn)) {
            throw new StepFunctionsException(ErrorCode.STATE_MACHINE_DOES_NOT_EXIST,
                    "State Machine Does Not Exist: '" + arn + "'");
        }
        return parts[6];
    }

    /**
     * {stateMachineName, executionName} of an execution ARN.
     *
     * @throws StepFunctionsException {@code InvalidArn} for an Express execution's ARN: the action asked
     *     of it is one AWS does not support for Express executions
     */
    String[] executionNames(String arn) {
        if (Arns.isExpressExecution(arn)) {
            throw new StepFunctionsException(ErrorCode.INVALID_ARN, "Invalid Arn: '" + arn + "' is an Express"
                    + " execution's; this action is not supported by EXPRESS state machines (their executions"
                    + " keep no history: read their state machine's log instead)");
        }
        String[] parts = split(arn, "execution", 8);
        if (!execution(parts[6], parts[7]).equals(arn)) {
            throw new StepFunctionsException(ErrorCode.EXECUTION_DOES_NOT_EXIST,
                    "Execution Does Not Exist: '" + arn + "'");
        }
        return new String[] {parts[6], parts[7]};
    }

    private static String[] split(String arn, String resourceType, int fields) {
        String[] parts = arn.split(":", -1);
        if (parts.length != fields || !"arn".equals(parts[0]) || parts[1].isEmpty() || !"states".equals(parts[2])
                || !resourceType.equals(parts[5]) || parts[fields - 1].isEmpty()) {
            throw new StepFunctionsException(ErrorCode.INVALID_ARN, "Invalid Arn: '" + arn + "' is not a "
                    + resourceType + " ARN (expected arn:<partition>:states:<region>:<account>:" + resourceType
                    + (fields == 8 ? ":<stateMachineName>:<executionName>" : ":<name>") + ")");
        }
        return parts;
    }

    /** A role ARN: {@code arn:<partition>:iam::<account>:role/<name>}. Nothing is assumed locally. */
    static void validateRoleArn(String roleArn) {
        String[] parts = roleArn.split(":", 6);
        if (parts.length != 6 || !"arn".equals(parts[0]) || parts[1].isEmpty() || !"iam".equals(parts[2])
                || !parts[5].startsWith("role/") || parts[5].length() <= "role/".length()) {
            throw new StepFunctionsException(ErrorCode.INVALID_ARN, "Invalid Arn: Role Arn '" + roleArn
                    + "' is not an IAM role ARN (expected arn:aws:iam::<account>:role/<name>)");
        }
    }
}
