package dev.punctual.local.stepfunctions.executions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.time.ManualTimer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Express machine on a durable engine: the machine (its type and logging) survives a restart, its
 * executions do not (nothing of them is journaled, as AWS persists nothing of an Express execution), and
 * a journal written before machines had a type reads back Standard.
 */
class ExpressDurabilityTest {

    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String WAIT = """
            {"StartAt":"Hold","States":{"Hold":{"Type":"Wait","Seconds":60,"End":true}}}""";

    @Test
    void restart_keepsTheMachinesTypeAndLogging_butNoneOfItsExecutions(@TempDir Path data) {
        ManualTimer timer = ManualTimer.startingAt(Instant.parse("2030-01-01T00:00:00Z"));
        String arn;
        try (StepFunctionsEngine engine = engine(timer, data)) {
            arn = engine.createStateMachine("runner", WAIT, ROLE, "EXPRESS", new ExecutionLogging("ERROR", false))
                    .stateMachineArn();
            engine.createStateMachine("bucket", WAIT, ROLE, null);
            engine.startExecution(arn, "r-1", "{}").join();
        }

        try (StepFunctionsEngine restarted = engine(timer, data)) {
            StateMachineDescription runner = restarted.describeStateMachine(arn);
            assertThat(runner.type()).isEqualTo("EXPRESS");
            assertThat(runner.logging()).isEqualTo(new ExecutionLogging("ERROR", false));
            assertThat(restarted.describeStateMachine(restarted.stateMachineArn("bucket")).type()).isEqualTo("STANDARD");
            assertThat(restarted.runningExpressExecutions()).as("an Express execution is lost with its host").isEmpty();
            assertThat(restarted.recovery().executionsResumed()).isZero();
        }
    }

    @Test
    void stateMachinePut_fromAJournalWithoutTypes_readsBackStandardWithoutLogging() {
        byte[] old = new BinaryWriter(64).writeByte(1).writeString("old").writeLong(5).writeVarInt(1)
                .writeString(WAIT).writeString(ROLE).writeLong(6).toByteArray();

        JournalCodec.StateMachinePut put = (JournalCodec.StateMachinePut) JournalCodec.decode(old);

        assertThat(put.type()).isEqualTo(WorkflowType.STANDARD);
        assertThat(put.logging()).isEqualTo(ExecutionLogging.OFF);
        assertThat(put.definitionJson()).isEqualTo(WAIT);
    }

    private static StepFunctionsEngine engine(ManualTimer timer, Path data) {
        return StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(List.of())
                .timer(timer)
                .dataDirectory(data)
                .build();
    }
}
