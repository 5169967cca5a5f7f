package dev.punctual.local.stepfunctions.asl.states;

import java.util.Set;

/** {@code Succeed}: ends its state machine with its (InputPath/OutputPath-filtered) input. */
public final class SucceedState extends State {

    public static final StateType TYPE = new StateType("Succeed", StateFields.PATHS, Set.of(),
            (fields, node) -> new SucceedState(fields));

    public SucceedState(StateFields fields) {
        super(fields);
    }

    @Override
    public String type() {
        return TYPE.name();
    }

    @Override
    protected boolean producesResult() {
        return false;
    }

    @Override
    protected boolean terminal() {
        return true;
    }

    @Override
    protected void act(Attempt attempt) {
        attempt.complete(attempt.input());
    }
}
