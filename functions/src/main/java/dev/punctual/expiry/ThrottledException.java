package dev.punctual.expiry;

/**
 * Step Functions refused a call because its quota's token bucket was empty: the call did nothing
 * and may be made again later. Adapters raise it for the service's throttling errors.
 */
public final class ThrottledException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param action the API action, e.g. {@code StartExecution} */
    public ThrottledException(String action, Throwable cause) {
        super(action + " was throttled by Step Functions: " + cause.getMessage(), cause);
    }
}
