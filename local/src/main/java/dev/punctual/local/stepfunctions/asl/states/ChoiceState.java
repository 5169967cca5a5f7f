package dev.punctual.local.stepfunctions.asl.states;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.StatesNoChoiceMatchedError;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** {@code Choice}: the first rule that matches names the next state, else {@code Default}. */
public final class ChoiceState extends State {

    public static final StateType TYPE = new StateType("Choice", StateFields.PATHS, Set.of("Choices", "Default"),
            ChoiceState::read);

    /** A top-level rule and where it leads. */
    public record Branch(ChoiceRule rule, String next) {
    }

    private final List<Branch> choices;
    private final String defaultNext;

    public ChoiceState(StateFields fields, List<Branch> choices, String defaultNext) {
        super(fields);
        this.choices = List.copyOf(choices);
        this.defaultNext = defaultNext;
    }

    public List<Branch> choices() {
        return choices;
    }

    public String defaultNext() {
        return defaultNext;
    }

    @Override
    public String type() {
        return TYPE.name();
    }

    private static ChoiceState read(StateFields fields, DefinitionNode node) {
        List<Branch> branches = new ArrayList<>();
        for (DefinitionNode rule : node.nonEmptyArray("Choices", "A Choice state needs a non-empty 'Choices' array")) {
            JsonNode next = rule.get("Next");
            if (next == null || !next.isTextual()) {
                throw rule.error("Next", "Each Choice rule needs 'Next'");
            }
            branches.add(new Branch(ChoiceRule.read(rule, true), next.textValue()));
        }
        return new ChoiceState(fields, branches, node.optionalString("Default"));
    }

    @Override
    protected boolean producesResult() {
        return false;
    }

    @Override
    protected void act(Attempt attempt) {
        for (Branch branch : choices) {
            if (branch.rule().test(attempt.input(), attempt.context())) {
                attempt.completeTo(attempt.input(), branch.next());
                return;
            }
        }
        if (defaultNext == null) {
            throw new StatesNoChoiceMatchedError("No choice rule matched and there is no Default.");
        }
        attempt.completeTo(attempt.input(), defaultNext);
    }
}
