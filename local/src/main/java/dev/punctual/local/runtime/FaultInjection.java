package dev.punctual.local.runtime;

import dev.punctual.local.events.PutEventsFaults;
import dev.punctual.local.faults.FaultCounts;
import dev.punctual.local.faults.Faults;
import java.util.Objects;

/**
 * The faults a {@link LocalRuntime} injects where Punctual calls ({@code --dynamodb-fault},
 * {@code --lambda-fault}, a test's {@code failNextAt}), and what it has injected so far. Set before or
 * while the work runs; each call site is named {@code caller.<Operation>}, e.g.
 * {@code bucket-function.DeleteItem} or {@code state-machine.Invoke}.
 *
 * @param dynamoDb faults for every DynamoDB call Punctual makes: the handler's, the bucket and backfill
 *     functions', the state machines'
 * @param lambda faults for the in-process functions' invocations: by a state machine's Lambda task (call
 *     site {@code state-machine.Invoke}: windowed mode's bucket runner, the backfill) and by an event rule
 *     ({@code <rule>.Invoke}: windowed mode's healing and sweep)
 * @param putEvents faults for the EventBridge endpoint's {@code PutEvents}, which count their own refusals
 * @param injected the DynamoDB and Lambda faults injected so far, per call site
 */
public record FaultInjection(Faults dynamoDb, Faults lambda, PutEventsFaults putEvents, FaultCounts injected) {

    public FaultInjection {
        Objects.requireNonNull(dynamoDb, "dynamoDb");
        Objects.requireNonNull(lambda, "lambda");
        Objects.requireNonNull(putEvents, "putEvents");
        Objects.requireNonNull(injected, "injected");
    }
}
