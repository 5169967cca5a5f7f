package com.example.sessions;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The application's reaction to a session's end: in AWS, the target of an EventBridge rule on
 * Punctual's {@code ItemExpired} events for the sessions table. Here it keeps a log of sign-outs.
 */
public final class SignOuts {

    /** One session ended: which, and when its deletion was seen. */
    public record SignOut(String sessionId, Instant at) {
    }

    private final List<SignOut> log = new CopyOnWriteArrayList<>();

    /** Called with each expired session's id and the instant its deletion was seen. */
    public void sessionExpired(String sessionId, Instant at) {
        log.add(new SignOut(sessionId, at));
    }

    public List<SignOut> log() {
        return List.copyOf(log);
    }
}
