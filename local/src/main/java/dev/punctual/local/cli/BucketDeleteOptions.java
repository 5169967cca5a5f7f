package dev.punctual.local.cli;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.StreamWiring;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --bucket-delete-concurrency N}: windowed mode's bucket delete concurrency, what the construct's
 * {@code bucketDeleteConcurrency} sets in AWS, with the same default and bounds, so local figures pace
 * a second's deletes as a deployment does. Every command that starts the runtime mixes it in.
 */
final class BucketDeleteOptions {

    static final String OPTION = "--bucket-delete-concurrency";

    @Option(names = OPTION, paramLabel = "N", converter = ConcurrencyConverter.class,
            description = "Windowed mode: DeleteItems the bucket function has in flight at once when a second's items"
                    + " fall due, 1-" + StreamWiring.MAX_MAX_CONCURRENCY + ", as the construct's bucketDeleteConcurrency"
                    + " (default: " + StreamWiring.DEFAULT_BUCKET_CONCURRENCY + ", the construct's too).")
    Integer concurrency;

    /**
     * {@code options} with the concurrency given, unchanged without one. Refused in a mode without a bucket
     * function, as the construct refuses the prop: a setting that would silently do nothing misleads a run.
     */
    LocalRuntime.Options applyTo(CommandSpec spec, LocalRuntime.Options options) {
        if (concurrency == null) {
            return options;
        }
        if (!options.mode().deletesInBuckets()) {
            throw new ParameterException(spec.commandLine(), OPTION + " applies to windowed mode only: "
                    + options.mode().label() + " mode has no bucket function (each item's own execution deletes it);"
                    + " add --mode windowed, or leave " + OPTION + " out");
        }
        return options.withBucketDeleteConcurrency(concurrency);
    }

    /** Refuses what is not a whole number within the bounds while the command line is parsed, before anything starts. */
    static final class ConcurrencyConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            String expected = "must be a whole number from 1 to " + StreamWiring.MAX_MAX_CONCURRENCY
                    + " (DeleteItems in flight at once; default " + StreamWiring.DEFAULT_BUCKET_CONCURRENCY + "), got '"
                    + value + "'";
            int parsed;
            try {
                parsed = Integer.parseInt(value.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException(expected);
            }
            if (parsed < 1 || parsed > StreamWiring.MAX_MAX_CONCURRENCY) {
                throw new TypeConversionException(expected);
            }
            return parsed;
        }
    }
}
