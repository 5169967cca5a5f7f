package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code Parallel}: runs every branch on the effective input at once; the result is the branches'
 * outputs in branch order. The first failing branch stops the others and fails the attempt with its
 * error; a retry starts the state again ({@code ParallelStateStarted}), and {@code ParallelStateFailed}
 * closes it once no Retrier retries it.
 */
public final class ParallelState extends State {

    public static final StateType TYPE = new StateType("Parallel",
            StateType.common(StateFields.TRANSITION, StateFields.PATHS, Set.of("Parameters"),
                    StateFields.RESULT_AND_ERRORS),
            Set.of("Branches"), ParallelState::read);

    private final List<StateMachineGraph> branches;

    public ParallelState(StateFields fields, List<StateMachineGraph> branches) {
        super(fields);
        this.branches = List.copyOf(branches);
    }

    @Override
    public String type() {
        return TYPE.name();
    }

    private static ParallelState read(StateFields fields, DefinitionNode node) {
        List<StateMachineGraph> graphs = new ArrayList<>();
        for (DefinitionNode branch : node.nonEmptyArray("Branches", "A Parallel state needs a non-empty 'Branches' array")) {
            graphs.add(node.parser().graph(branch));
        }
        return new ParallelState(fields, graphs);
    }

    @Override
    protected boolean producesResult() {
        return true;
    }

    @Override
    protected void act(Attempt attempt) {
        attempt.emit("ParallelStateStarted", attempt.details());
        attempt.failsForGoodWith("ParallelStateFailed");
        JsonNode[] results = new JsonNode[branches.size()];
        GraphRun[] runs = new GraphRun[branches.size()];
        int[] finished = {0};
        boolean[] failed = {false};
        for (int i = 0; i < branches.size(); i++) {
            int index = i;
            runs[i] = attempt.childRun(branches.get(i), result -> {
                if (failed[0]) {
                    return;
                }
                if (!result.succeeded()) {
                    failed[0] = true;
                    for (GraphRun run : runs) {
                        run.scope.stop();
                    }
                    attempt.fail(result.error());
                    return;
                }
                results[index] = result.output();
                if (++finished[0] == results.length) {
                    ArrayNode output = Json.MAPPER.createArrayNode();
                    for (JsonNode branchOutput : results) {
                        output.add(branchOutput);
                    }
                    attempt.emit("ParallelStateSucceeded", attempt.details());
                    attempt.complete(output);
                }
            });
        }
        for (GraphRun run : runs) {
            run.start(attempt.input());
        }
    }
}
