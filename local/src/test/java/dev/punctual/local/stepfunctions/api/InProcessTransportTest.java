package dev.punctual.local.stepfunctions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.stepfunctions.asl.Interpreter;
import dev.punctual.local.stepfunctions.executions.StepFunctionsEngine;
import dev.punctual.local.time.ManualTimer;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ExecutionAlreadyExistsException;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.InvalidArnException;
import software.amazon.awssdk.services.sfn.model.StateMachineDoesNotExistException;

/** The SDK's own SfnClient over the in-process transport: marshalling, errors and results as over HTTP. */
class InProcessTransportTest {

    private static final String ROLE = "arn:aws:iam::123456789012:role/punctual-local";
    private static final String WAIT = """
            {"StartAt":"Hold","States":{"Hold":{"Type":"Wait","Seconds":60,"End":true}}}""";

    private StepFunctionsEngine local;
    private InProcessTransport transport;
    private SfnClient sfn;

    @BeforeEach
    void start() {
        ManualTimer timer = ManualTimer.startingAt(Instant.parse("2030-01-01T00:00:00Z"));
        local = StepFunctionsEngine.builder()
                .interpreter(resources -> new Interpreter(timer, resources, Runnable::run))
                .taskResources(List.of())
                .timer(timer)
                .build();
        transport = new InProcessTransport(local);
        sfn = SfnClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:1"))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(transport)
                .build();
    }

    @AfterEach
    void stop() {
        sfn.close();
        local.close();
    }

    @Test
    void startAndDescribe_reachTheEngineWithoutASocket() {
        String machine = sfn.createStateMachine(b -> b.name("held").definition(WAIT).roleArn(ROLE)).stateMachineArn();

        String arn = sfn.startExecution(b -> b.stateMachineArn(machine).name("one").input("{\"a\":1}")).executionArn();

        assertThat(arn).isEqualTo("arn:aws:states:us-east-1:123456789012:execution:held:one");
        assertThat(sfn.describeExecution(b -> b.executionArn(arn)).status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(local.openExecutions()).isEqualTo(1);
    }

    @Test
    void serviceErrors_comeBackAsTheSdksModeledExceptions() {
        String machine = sfn.createStateMachine(b -> b.name("held").definition(WAIT).roleArn(ROLE)).stateMachineArn();
        sfn.startExecution(b -> b.stateMachineArn(machine).name("one").input("{}"));

        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine).name("one").input("{\"other\":1}")))
                .isInstanceOf(ExecutionAlreadyExistsException.class)
                .hasMessageContaining("running with a different input");
        assertThatThrownBy(() -> sfn.startExecution(b -> b.stateMachineArn(machine.replace("held", "missing"))))
                .isInstanceOf(StateMachineDoesNotExistException.class);
        assertThatThrownBy(() -> sfn.describeExecution(b -> b.executionArn("not-an-arn")))
                .isInstanceOf(InvalidArnException.class);
    }

    @Test
    void aNonPostRequestOrAnUnknownTarget_isAnsweredAsTheHttpServerWould() throws Exception {
        HttpExecuteResponse get = transport.prepareRequest(HttpExecuteRequest.builder()
                .request(SdkHttpRequest.builder().method(SdkHttpMethod.GET).uri(URI.create("http://local/")).build())
                .build()).call();
        HttpExecuteResponse unknown = transport.prepareRequest(HttpExecuteRequest.builder()
                .request(SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(URI.create("http://local/"))
                        .putHeader("X-Amz-Target", "AWSStepFunctions.Explode").build())
                .contentStreamProvider(() -> new ByteArrayInputStream("{}".getBytes(StandardCharsets.UTF_8)))
                .build()).call();

        assertThat(get.httpResponse().statusCode()).isEqualTo(400);
        assertThat(get.httpResponse().firstMatchingHeader("X-Amzn-ErrorType")).hasValue("UnknownOperationException");
        assertThat(unknown.httpResponse().statusCode()).isEqualTo(400);
        assertThat(new String(unknown.responseBody().orElseThrow().readAllBytes(), StandardCharsets.UTF_8))
                .contains("Unknown operation").contains("AWSStepFunctions.Explode");
    }
}
