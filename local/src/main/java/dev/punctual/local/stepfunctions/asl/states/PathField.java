package dev.punctual.local.stepfunctions.asl.states;

/**
 * A path field of a state ({@code InputPath}, {@code OutputPath}, {@code ResultPath}) as written:
 * absent (the default, {@code $}), JSON {@code null} (the spec's "discard"), or a path.
 *
 * @param <P> the kind of path: a JSONPath to select with, or a reference path to place a result at
 */
public record PathField<P>(P path, boolean isNull) {

    private static final PathField<?> ABSENT = new PathField<>(null, false);
    private static final PathField<?> NULL = new PathField<>(null, true);

    /** The field was not given. */
    @SuppressWarnings("unchecked")
    public static <P> PathField<P> absent() {
        return (PathField<P>) ABSENT;
    }

    /** The field was given as JSON {@code null}. */
    @SuppressWarnings("unchecked")
    public static <P> PathField<P> ofNull() {
        return (PathField<P>) NULL;
    }

    public static <P> PathField<P> of(P path) {
        return new PathField<>(java.util.Objects.requireNonNull(path, "path"), false);
    }

    /** Whether the field was not given at all, which means {@code $}. */
    public boolean isAbsent() {
        return path == null && !isNull;
    }
}
