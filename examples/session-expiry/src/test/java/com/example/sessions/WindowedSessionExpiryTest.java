package com.example.sessions;

import dev.punctual.junit.PunctualExtension;
import dev.punctual.statemachine.ExpiryMode;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SessionExpiryTests} on Punctual's windowed mode: sessions indexed into time buckets. */
class WindowedSessionExpiryTest extends SessionExpiryTests {

    @RegisterExtension
    static PunctualExtension punctual = PunctualExtension.inMode(ExpiryMode.WINDOWED);
}
