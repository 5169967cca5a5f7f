package dev.punctual.cdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The deployable Lambda bundle (the functions module's shaded jar). The punctual-cdk artifact carries it
 * as the classpath resource {@value #RESOURCE} beside this class, so a CDK app that only depends on
 * punctual-cdk deploys it; nothing is looked up in a source tree. At synthesis it is extracted to a file
 * named by its SHA-256 ({@link #assetHash}), which is also its CDK asset hash: a rebuild that changes
 * nothing stages the same asset and {@code cdk deploy} has nothing to do.
 */
public final class FunctionBundle {

    /** The bundle's resource name, relative to this class's package. */
    public static final String RESOURCE = "punctual-functions-lambda.jar";

    /** System property that points at a jar built elsewhere (a fork, a CI artifact): wins over the resource. */
    public static final String JAR_PROPERTY = "punctual.functions.jar";

    /** Where extracted bundles go, under {@code java.io.tmpdir}; one file per content hash. */
    static final String EXTRACT_DIRECTORY = "punctual-cdk";

    private FunctionBundle() {
    }

    /** The bundle for this process: the {@value #JAR_PROPERTY} property, else the one on the classpath. */
    public static Path locate() {
        String override = System.getProperty(JAR_PROPERTY);
        if (override != null && !override.isBlank()) {
            Path jar = Path.of(override).toAbsolutePath().normalize();
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("The Lambda bundle " + jar + " (from -D" + JAR_PROPERTY
                        + ") does not exist; point it at a built punctual-functions-*-lambda.jar or leave it unset");
            }
            return jar;
        }
        return fromClasspath(Path.of(System.getProperty("java.io.tmpdir"), EXTRACT_DIRECTORY));
    }

    /**
     * The classpath's bundle, extracted into {@code directory} as {@code punctual-functions-<sha256>.jar}
     * (reused when already there).
     *
     * @throws IllegalStateException when the classpath has no bundle: punctual-cdk was not built by Maven
     */
    public static Path fromClasspath(Path directory) {
        try (InputStream in = FunctionBundle.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("The Lambda bundle " + RESOURCE + " is not on the classpath beside "
                        + FunctionBundle.class.getName() + ". Depend on the dev.punctual:punctual-cdk artifact (it"
                        + " carries the bundle), build this repository with `mvn -B package -DskipTests`, or pass"
                        + " PunctualExpiryProps.functionJar / -D" + JAR_PROPERTY + "=<jar>");
            }
            byte[] bytes = in.readAllBytes();
            Path jar = directory.resolve("punctual-functions-" + sha256(bytes) + ".jar");
            if (!Files.isRegularFile(jar) || Files.size(jar) != bytes.length) {
                Files.createDirectories(directory);
                Path partial = Files.createTempFile(directory, "punctual-functions-", ".partial");
                Files.write(partial, bytes);
                Files.move(partial, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot extract the Lambda bundle into " + directory, e);
        }
    }

    /** The SHA-256 of the jar's bytes, in hex: the asset hash CDK stages and deploys it under. */
    public static String assetHash(Path jar) {
        try {
            return sha256(Files.readAllBytes(jar));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the Lambda bundle " + jar, e);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
