package com.example.sessions;

import dev.punctual.junit.PunctualExtension;
import dev.punctual.statemachine.ExpiryMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SessionExpiryTests} on Punctual's per-item mode: one Step Functions execution per session. */
class PerItemSessionExpiryTest extends SessionExpiryTests {

    @RegisterExtension
    static PunctualExtension punctual = PunctualExtension.inMode(ExpiryMode.PER_ITEM);
}
