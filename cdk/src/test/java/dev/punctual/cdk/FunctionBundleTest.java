package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FunctionBundleTest {

    @TempDir
    Path directory;

    @Test
    void fromClasspath_extractsTheCarriedBundle_namedByItsContentHash() throws IOException {
        Path jar = FunctionBundle.fromClasspath(directory);

        assertThat(jar).isRegularFile().hasParent(directory);
        assertThat(jar.getFileName().toString()).isEqualTo("punctual-functions-" + FunctionBundle.assetHash(jar) + ".jar");
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            assertThat(zip.getEntry("dev/punctual/functions/ExpiryStreamHandler.class")).isNotNull();
            assertThat(zip.getEntry("dev/punctual/functions/BucketFunction.class")).isNotNull();
        }
    }

    @Test
    void fromClasspath_twice_reusesTheSameFileWithTheSameHash() {
        Path first = FunctionBundle.fromClasspath(directory);
        Path second = FunctionBundle.fromClasspath(directory);

        assertThat(second).isEqualTo(first);
        assertThat(FunctionBundle.assetHash(second)).isEqualTo(FunctionBundle.assetHash(first)).hasSize(64);
    }

    @Test
    void locate_withoutOverride_isTheCarriedBundle_notAFileInTheSourceTree() {
        Path jar = FunctionBundle.locate();

        assertThat(jar.getParent()).isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), FunctionBundle.EXTRACT_DIRECTORY));
        assertThat(jar.toString()).doesNotContain("functions/target");
    }

    @Test
    void locate_whenOverrideNamesAMissingJar_saysWhichPropertyPointedThere() {
        String previous = System.getProperty(FunctionBundle.JAR_PROPERTY);
        System.setProperty(FunctionBundle.JAR_PROPERTY, directory.resolve("absent.jar").toString());
        try {
            assertThatThrownBy(FunctionBundle::locate)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("absent.jar")
                    .hasMessageContaining("-D" + FunctionBundle.JAR_PROPERTY);
        } finally {
            if (previous == null) {
                System.clearProperty(FunctionBundle.JAR_PROPERTY);
            } else {
                System.setProperty(FunctionBundle.JAR_PROPERTY, previous);
            }
        }
    }
}
