package dev.punctual.local.stepfunctions.asl.states;

/** {@code Succeed}: ends its state machine with its (InputPath/OutputPath-filtered) input. */
public final class SucceedState extends State {

    public SucceedState(StateFields fields) {
        super(fields);
    }

    @Override
    public String type() {
        return "Succeed";
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
    protected void act(Activation activation) {
        activation.complete(activation.input());
    }
}
