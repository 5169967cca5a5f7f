package dev.punctual.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.statemachine.Contract;
import dev.punctual.statemachine.PunctualVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryManifestTest {

    @TempDir
    Path data;

    @Test
    void open_whenNew_writesThisBuildsContractAndVersion() throws Exception {
        assertThat(DataDirectoryManifest.open(data)).isEqualTo(1);

        String manifest = Files.readString(data.resolve(DataDirectoryManifest.FILE_NAME));
        assertThat(manifest).contains("\"contract\" : " + Contract.DATA_DIR.version())
                .contains("\"writtenBy\" : \"" + PunctualVersion.current() + "\"");
    }

    @Test
    void open_whenWrittenBeforeTheManifest_readsVersionOne() throws Exception {
        Files.createDirectories(data.resolve("stepfunctions"));

        assertThat(DataDirectoryManifest.open(data)).isEqualTo(1);
    }

    @Test
    void open_whenANewerPunctualWroteIt_refusesNamingTheContract_andLeavesTheManifest() throws Exception {
        String newer = "{\"contract\": " + (Contract.DATA_DIR.version() + 1) + ", \"writtenBy\": \"9.0.0\"}";
        Files.writeString(data.resolve(DataDirectoryManifest.FILE_NAME), newer);

        assertThatThrownBy(() -> DataDirectoryManifest.open(data))
                .isInstanceOf(Contract.UnsupportedContractException.class)
                .hasMessageContaining("punctual local --data-dir (contract DATA_DIR)");
        assertThat(Files.readString(data.resolve(DataDirectoryManifest.FILE_NAME))).isEqualTo(newer);
    }
}
