package dev.punctual.statemachine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version of Punctual this code was built as: the construct, the function (on every log line, as
 * {@code punctualVersion}) and {@code punctual --version} all read it here, from the one resource Maven
 * filters with {@code ${project.version}}, so they can never disagree.
 */
public final class PunctualVersion {

    private static final String RESOURCE = "punctual-version.properties";
    private static final String CURRENT = load();

    private PunctualVersion() {
    }

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String current() {
        return CURRENT;
    }

    private static String load() {
        try (InputStream in = PunctualVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + PunctualVersion.class.getName()
                        + ": the statemachine module was not built by Maven (its resources are filtered at build time)");
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "");
            if (version.isBlank() || version.contains("${")) {
                throw new IllegalStateException(RESOURCE + " holds no filtered version (" + version
                        + "): rebuild the statemachine module with Maven");
            }
            return version;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + RESOURCE, e);
        }
    }
}
