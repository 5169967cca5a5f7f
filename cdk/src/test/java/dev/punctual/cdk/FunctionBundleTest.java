package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FunctionBundleTest {

    @TempDir
    Path repository;

    @Test
    void locateFrom_whenStartedInASubdirectory_findsTheRepositorysJar() throws IOException {
        Files.createDirectories(repository.resolve("functions/target"));
        Files.writeString(repository.resolve("functions/pom.xml"), "<project/>");
        Path jar = Files.writeString(repository.resolve(FunctionBundle.JAR_IN_REPOSITORY), "jar");
        Path cdk = Files.createDirectories(repository.resolve("cdk/src"));

        assertThat(FunctionBundle.locateFrom(cdk)).isEqualTo(jar);
        assertThat(FunctionBundle.locateFrom(repository)).isEqualTo(jar);
    }

    @Test
    void locateFrom_whenJarNotBuilt_saysToBuildTheReactor() throws IOException {
        Files.createDirectories(repository.resolve("functions"));
        Files.writeString(repository.resolve("functions/pom.xml"), "<project/>");

        assertThatThrownBy(() -> FunctionBundle.locateFrom(repository.resolve("cdk")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(FunctionBundle.JAR_IN_REPOSITORY)
                .hasMessageContaining("mvn -B -o package -DskipTests");
    }

    @Test
    void locateFrom_whenOutsideAnyRepository_saysWhereToRunFrom() {
        assertThatThrownBy(() -> FunctionBundle.locateFrom(repository))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No Punctual repository");
    }

    @Test
    void locate_fromTheCdkModule_findsTheReactorBuiltJar() {
        // Surefire runs with cdk/ as working directory, like `cdk synth`; the reactor built the jar first.
        assertThat(FunctionBundle.locate()).endsWith(Path.of(FunctionBundle.JAR_IN_REPOSITORY)).isRegularFile();
    }
}
