package dev.punctual.local.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * {@code punctual local --dynamodb-endpoint URL --sfn-endpoint URL}: what it refuses before it attaches to
 * anything, and what it says when the services are not there. Attaching itself is run end to end on moto
 * ({@code MotoPerItemEndToEndTest} in {@code tests/}).
 */
class LocalCommandAttachTest {

    @Test
    void oneEndpointAlone_isRefused_sayingTheyGoTogether() {
        Result result = run("local", "--sfn-endpoint", "http://127.0.0.1:4566");

        assertThat(result.exit()).isEqualTo(2);
        assertThat(result.err()).contains("--dynamodb-endpoint and --sfn-endpoint go together");
    }

    @Test
    void windowedMode_isRefused_sayingItNeedsLambdaBehindTheEndpoint() {
        Result result = run("local", "--mode", "windowed", "--dynamodb-endpoint", "http://127.0.0.1:4566",
                "--sfn-endpoint", "http://127.0.0.1:4566");

        assertThat(result.exit()).isEqualTo(2);
        assertThat(result.err()).contains("--mode windowed: windowed mode cannot run attached")
                .contains("bucket function as a Lambda Task").contains("run per-item mode attached");
    }

    @Test
    void optionsForPartsNotStarted_areRefused_namingEachOne() {
        Result result = run("local", "--dynamodb-endpoint", "http://127.0.0.1:4566", "--sfn-endpoint",
                "http://127.0.0.1:4566", "--console-port", "9000", "--dynamodb-fault", "ThrottlingException=0.1");

        assertThat(result.exit()).isEqualTo(2);
        assertThat(result.err()).contains("--console-port, --dynamodb-fault configure Punctual's own");
    }

    @Test
    void unreachableServices_failWithAMessageNamingTheServiceAndItsEndpoint() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        String endpoint = "http://127.0.0.1:" + closed;

        Result result = run("local", "--dynamodb-endpoint", endpoint, "--sfn-endpoint", endpoint);

        assertThat(result.exit()).isEqualTo(1);
        assertThat(result.err()).contains("Cannot reach DynamoDB at " + endpoint).contains("start the service first");
        assertThat(result.out()).doesNotContain("Punctual attached and ready");
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = PunctualCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(exit, out.toString(), err.toString());
    }

    private record Result(int exit, String out, String err) {
    }
}
