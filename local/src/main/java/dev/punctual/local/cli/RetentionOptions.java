package dev.punctual.local.cli;

import dev.punctual.local.retention.Retained;
import dev.punctual.local.retention.RetentionSettings;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code --retain NAME=VALUE}: how much of the past the runtime keeps, beside {@code --quota}'s vocabulary. */
final class RetentionOptions {

    @Option(names = "--retain", paramLabel = "NAME=VALUE", converter = OverrideConverter.class,
            description = "Keep more or less of the past (repeatable): a count (closed-executions=20000) or an age"
                    + " (events=2h; s, m, h, d). Names: closed-executions, events, expiries, dead-letters,"
                    + " metric-points, metric-minutes. Defaults in docs/local-runtime.md.")
    List<RetentionOverride> overrides = new ArrayList<>();

    /** One {@code --retain} value, checked when parsed. */
    record RetentionOverride(String text) {
    }

    /** The retention these options ask for: the defaults with each override applied in order. */
    RetentionSettings retention() {
        RetentionSettings settings = RetentionSettings.defaults();
        for (RetentionOverride override : overrides) {
            settings = settings.withOverride(override.text());
        }
        return settings;
    }

    /** Refuses an unknown name or a bad value while the command line is parsed, before anything starts. */
    static final class OverrideConverter implements ITypeConverter<RetentionOverride> {
        @Override
        public RetentionOverride convert(String value) {
            try {
                RetentionSettings.defaults().withOverride(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
            return new RetentionOverride(value);
        }
    }

    /** One line saying what is kept, for the commands' start-up output. */
    static String describe(RetentionSettings settings) {
        StringBuilder line = new StringBuilder();
        for (Retained kind : Retained.values()) {
            line.append(line.length() == 0 ? "" : ", ").append(kind.optionName()).append(' ').append(settings.of(kind));
        }
        return line.toString();
    }
}
