package dev.punctual.local.modes;

import dev.punctual.statemachine.ExpiryMode;

/** Where the local runtime registers each {@link ExpiryMode}: a new mode adds its class and one case. */
public final class LocalModes {

    private LocalModes() {
    }

    /** {@code mode}'s local wiring. */
    public static LocalMode of(ExpiryMode mode) {
        return switch (mode) {
            case PER_ITEM -> new PerItemLocal();
            case WINDOWED -> new WindowedLocal();
        };
    }
}
