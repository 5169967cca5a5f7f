package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.asl.paths.Json;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * Random but valid state machines ({@link GeneratedMachine}) run on our interpreter and on
 * aws-local-stepfunctions, and the two must agree on status, output, error, cause and the instant
 * the run ended (both on virtual clocks from the same start). Each case is built from one seed; a
 * failure prints it and the whole case, and jqwik prints its own run seed
 * ({@code @Property(seed = "...")} replays the run). Skipped, with a message, only without Node.js.
 */
@AddLifecycleHook(GeneratedMachinesPropertyTest.SkipWithoutNode.class)
class GeneratedMachinesPropertyTest {

    /** How many generated cases {@code mvn verify} runs. */
    static final int CASES = 1000;

    @Property(tries = CASES)
    void generatedMachine_onBothInterpreters_agrees(@ForAll long caseSeed) {
        GeneratedMachine machine = GeneratedMachine.fromSeed(caseSeed);

        Differential run = Differential.runValid(AwsLocalStepFunctions.shared().orElseThrow(), machine.definition(),
                machine.input(), ConformanceTest.START, machine.tasks());

        assertThat(run.disagreements())
                .as("case seed %d (GeneratedMachine.fromSeed(%dL)):%n%s%nours   %s%ntheirs %s", caseSeed, caseSeed,
                        Json.write(machine.describe()), Differential.brief(run.ours()), Differential.brief(run.theirs()))
                .isEmpty();
    }

    /** Skips the container with the reason when Node.js is not installed. */
    static final class SkipWithoutNode implements SkipExecutionHook {
        @Override
        public SkipResult shouldBeSkipped(LifecycleContext context) {
            return AwsLocalStepFunctions.shared().isPresent() ? SkipResult.doNotSkip()
                    : SkipResult.skip(AwsLocalStepFunctions.whyUnavailable());
        }
    }
}
