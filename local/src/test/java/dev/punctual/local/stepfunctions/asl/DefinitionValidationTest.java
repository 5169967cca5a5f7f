package dev.punctual.local.stepfunctions.asl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.local.stepfunctions.asl.errors.InvalidDefinitionException;
import dev.punctual.local.stepfunctions.asl.paths.Json;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.StateMachineDefinitions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Definitions Step Functions refuses are refused at parse time, naming where the problem is. */
class DefinitionValidationTest {

    private static final String DELETE_ITEM = "arn:aws:states:::dynamodb:deleteItem";

    private final Interpreter interpreter = new Interpreter(ManualTimer.startingAt(Instant.EPOCH),
            List.of(new CannedTaskResource(Json.parse("{\"" + DELETE_ITEM + "\":[{\"result\":{}}],"
                    + "\"arn:aws:states:::states:startExecution\":[{\"result\":{}}]}"))), Runnable::run);

    static Stream<Arguments> invalidDefinitions() throws IOException {
        try (InputStream in = DefinitionValidationTest.class.getResourceAsStream("/validation/invalid-definitions.json")) {
            JsonNode fixture = Json.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            List<Arguments> cases = new ArrayList<>();
            fixture.get("cases").forEach(c -> cases.add(Arguments.of(c.get("name").asText(),
                    c.get("definition").isTextual() ? c.get("definition").asText() : Json.write(c.get("definition")),
                    c.get("messageContains").asText())));
            return cases.stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidDefinitions")
    void parse_whenInvalid_throwsNamingThePath(String name, String definition, String messageContains) {
        assertThatThrownBy(() -> interpreter.parse(definition))
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining(messageContains);
    }

    @Test
    void parse_whenExpireItemDefinition_accepts() {
        ParsedDefinition parsed = interpreter.parse(StateMachineDefinitions.expireItem("aws"));

        assertThat(parsed.json()).isEqualTo(StateMachineDefinitions.expireItem("aws"));
    }
}
