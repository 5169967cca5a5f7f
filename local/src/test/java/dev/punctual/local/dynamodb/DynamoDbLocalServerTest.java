package dev.punctual.local.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

class DynamoDbLocalServerTest {

    @TempDir
    Path temp;

    @Test
    void start_onPortZero_servesTheApiOnLoopbackOnly() throws Exception {
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
             DynamoDbClient dynamoDb = LocalDynamoDbClients.dynamoDb(server.endpoint())) {

            createTable(dynamoDb, "things");

            assertThat(server.port()).isPositive();
            assertThat(server.endpoint().toString()).isEqualTo("http://127.0.0.1:" + server.port());
            assertThat(server.boundAddress().isLoopbackAddress()).isTrue();
            assertThat(server.boundAddress().getHostAddress()).isEqualTo("127.0.0.1");
            assertThat(dynamoDb.listTables().tableNames()).containsExactly("things");
        }
    }

    @Test
    void start_onPortZero_acceptsConnectionsOnLoopback() throws Exception {
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
             Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            assertThat(socket.isConnected()).isTrue();
        }
    }

    @Test
    void start_whenPortIsTaken_saysWhichPortAndWhatToPass() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(port, null)))
                    .isInstanceOf(DynamoDbLocalStartException.class)
                    .hasMessage("port " + port + " is in use; pass --dynamodb-port with a free port (or 0 to pick one)");
        }
    }

    @Test
    void start_withDataDirectory_keepsTablesAcrossRestarts() {
        Path data = temp.resolve("data");
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, data));
             DynamoDbClient dynamoDb = LocalDynamoDbClients.dynamoDb(server.endpoint())) {
            createTable(dynamoDb, "kept");
        }
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, data));
             DynamoDbClient dynamoDb = LocalDynamoDbClients.dynamoDb(server.endpoint())) {
            assertThat(dynamoDb.listTables().tableNames()).containsExactly("kept");
        }
    }

    @Test
    void start_inMemory_startsEmptyEachTime() {
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
             DynamoDbClient dynamoDb = LocalDynamoDbClients.dynamoDb(server.endpoint())) {
            createTable(dynamoDb, "gone");
        }
        try (DynamoDbLocalServer server = DynamoDbLocalServer.start(DynamoDbLocalServer.Options.inMemoryOnFreePort());
             DynamoDbClient dynamoDb = LocalDynamoDbClients.dynamoDb(server.endpoint())) {
            assertThat(dynamoDb.listTables().tableNames()).isEmpty();
        }
    }

    @Test
    void start_whenDataDirectoryIsAFile_saysSo() throws Exception {
        Path file = Files.writeString(temp.resolve("not-a-directory"), "x");
        assertThatThrownBy(() -> DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, file.resolve("db"))))
                .isInstanceOf(DynamoDbLocalStartException.class)
                .hasMessageContaining("cannot create data directory " + file.resolve("db"));
        assertThatThrownBy(() -> DynamoDbLocalServer.start(new DynamoDbLocalServer.Options(0, file)))
                .isInstanceOf(DynamoDbLocalStartException.class)
                .hasMessageContaining(file.toString());
    }

    @Test
    void options_rejectImpossiblePorts() {
        assertThatThrownBy(() -> new DynamoDbLocalServer.Options(70000, null)).hasMessageContaining("70000");
    }

    private static void createTable(DynamoDbClient dynamoDb, String name) {
        dynamoDb.createTable(b -> b.tableName(name)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("id").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build()));
    }
}
