package dev.punctual.local.stepfunctions.asl.errors;

/** The error a Fail state raises: its {@code Error} and {@code Cause}, whatever names the definition gives them. */
public final class FailStateError extends AslError {

    private static final long serialVersionUID = 1L;

    public FailStateError(String name, String cause) {
        super(name, cause);
    }
}
