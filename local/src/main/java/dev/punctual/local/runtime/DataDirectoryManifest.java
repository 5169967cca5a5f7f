package dev.punctual.local.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.statemachine.Contract;
import dev.punctual.statemachine.PunctualVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The version of a {@code --data-dir} ({@link Contract#DATA_DIR}): the Step Functions journal (segments,
 * snapshots, closed-execution files), the stream checkpoints and dead letters, the events file and DynamoDB
 * Local's database. The binary journal has no field of its own to carry it, so the directory does, in
 * {@value #FILE_NAME}: read before anything else opens the directory, refused when newer than this build
 * reads (so a rollback onto a directory a later version wrote stops at once, naming the contract, rather
 * than misreading a journal), then written with this build's version. A directory without it was written
 * before the file existed: version 1.
 */
final class DataDirectoryManifest {

    /** The file's name in the data directory. */
    static final String FILE_NAME = "punctual-data-dir.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private DataDirectoryManifest() {
    }

    /**
     * Checks {@code directory}'s manifest, then writes this build's.
     *
     * @return the version the directory held (1 for a new one or one without a manifest)
     * @throws Contract.UnsupportedContractException when a newer Punctual wrote it
     */
    static int open(Path directory) {
        Path file = directory.resolve(FILE_NAME);
        int held = Contract.ABSENT;
        try {
            Files.createDirectories(directory);
            if (Files.exists(file)) {
                JsonNode manifest = JSON.readTree(file.toFile());
                JsonNode contract = manifest.get(Contract.FIELD);
                held = Contract.DATA_DIR.check(contract == null || contract.isNull() ? null
                        : contract.isNumber() ? contract.numberValue() : contract.asText());
            }
            ObjectNode manifest = JSON.createObjectNode();
            manifest.put(Contract.FIELD, Contract.DATA_DIR.version());
            manifest.put("writtenBy", PunctualVersion.current());
            Path temp = directory.resolve(FILE_NAME + ".tmp");
            Files.write(temp, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(manifest));
            try {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            return held;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write " + file + "; check the data directory is writable", e);
        }
    }
}
