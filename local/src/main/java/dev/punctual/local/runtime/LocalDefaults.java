package dev.punctual.local.runtime;

import dev.punctual.local.account.LocalAccount;
import dev.punctual.local.modes.WindowedLocal;
import dev.punctual.statemachine.Arns;
import dev.punctual.statemachine.ExpiryMode;
import java.net.URI;

/** The embedded runtime's fixed coordinates, shared by the runtime, its CLI and the tests. */
public final class LocalDefaults {

    /** DynamoDB Local's port, as DynamoDB Local itself defaults. */
    public static final int DYNAMODB_PORT = 8000;
    /** The Step Functions API's port, as AWS's Step Functions Local defaults. */
    public static final int STEP_FUNCTIONS_PORT = 8083;
    /** The local console's port: the next after the Step Functions API's. */
    public static final int CONSOLE_PORT = 8084;
    /** The EventBridge endpoint's port (expiry events): the next after the console's. */
    public static final int EVENTS_PORT = 8085;
    /** The bus the local runtime's handler publishes expiry events to; locally every bus is one. */
    public static final String EVENT_BUS = "default";
    /** Everything binds here and nowhere else. */
    public static final String LOOPBACK = "127.0.0.1";
    /** Name of the expire-item state machine the runtime creates. */
    public static final String STATE_MACHINE_NAME = "punctual-expire-item";
    /** Name of the backfill state machine the runtime creates. */
    public static final String BACKFILL_STATE_MACHINE_NAME = "punctual-backfill";
    /** Name of the in-process backfill function. */
    public static final String BACKFILL_FUNCTION_NAME = "punctual-backfill";
    /** Role ARN the state machine is created with (never checked locally). */
    public static final String ROLE_ARN = "arn:aws:iam::" + LocalAccount.ACCOUNT_ID + ":role/punctual-local";

    private LocalDefaults() {
    }

    /** ARN of the expire-item state machine on the local runtime. */
    public static String stateMachineArn() {
        return Arns.stateMachine(LocalAccount.PARTITION, LocalAccount.REGION, LocalAccount.ACCOUNT_ID,
                STATE_MACHINE_NAME);
    }

    /** ARN of the state machine the stream handler starts executions of in {@code mode} on the local runtime. */
    public static String stateMachineArn(ExpiryMode mode) {
        return switch (mode) {
            case PER_ITEM -> stateMachineArn();
            case WINDOWED -> bucketStateMachineArn();
        };
    }

    /** ARN of windowed mode's expire-bucket state machine on the local runtime. */
    public static String bucketStateMachineArn() {
        return Arns.stateMachine(LocalAccount.PARTITION, LocalAccount.REGION, LocalAccount.ACCOUNT_ID,
                WindowedLocal.STATE_MACHINE_NAME);
    }

    /** ARN of the in-process function {@code name}, as a state machine definition names it. */
    public static String functionArn(String name) {
        return "arn:aws:lambda:" + LocalAccount.REGION + ":" + LocalAccount.ACCOUNT_ID + ":function:" + name;
    }

    /** ARN of the backfill state machine on the local runtime. */
    public static String backfillStateMachineArn() {
        return Arns.stateMachine(LocalAccount.PARTITION, LocalAccount.REGION, LocalAccount.ACCOUNT_ID,
                BACKFILL_STATE_MACHINE_NAME);
    }

    /** Endpoint URI on loopback for a port. */
    public static URI endpoint(int port) {
        return URI.create("http://" + LOOPBACK + ":" + port);
    }
}
