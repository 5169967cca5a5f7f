package dev.punctual.functions;

import dev.punctual.expiry.Executions;
import java.time.Clock;
import java.util.Map;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What both functions' collaborator builders share: the environment they are configured from, the
 * settings read from it, and the Step Functions, DynamoDB and clock parts a caller may replace. A part
 * left unset is built from the environment through {@link OwnedClients}, or is the system clock.
 *
 * @param <B> the function's own builder
 */
abstract class CollaboratorsBuilder<B extends CollaboratorsBuilder<B>> {

    final Map<String, String> environment;
    final ExpirySettings settings;
    Executions executions;
    DynamoDbClient dynamoDb;
    Clock clock = Clock.systemUTC();

    /** @throws IllegalArgumentException from {@code read}, naming the variable that is missing or malformed */
    CollaboratorsBuilder(Map<String, String> environment, Function<Map<String, String>, ExpirySettings> read) {
        this.environment = Map.copyOf(environment);
        this.settings = read.apply(environment);
    }

    abstract B self();

    /** The settings read from the environment, for building a part before the collaborators are built. */
    public ExpirySettings settings() {
        return settings;
    }

    /** Default: an {@link SfnExecutions} with its own HTTP client. */
    public B executions(Executions value) {
        this.executions = value;
        return self();
    }

    /** Default (when the function needs one): a client of its own for the endpoint the environment names. */
    public B dynamoDb(DynamoDbClient value) {
        this.dynamoDb = value;
        return self();
    }

    /** Default: {@link Clock#systemUTC()}. */
    public B clock(Clock value) {
        this.clock = value;
        return self();
    }

    /** The clients to build the unset parts with; the function closes them. */
    OwnedClients ownedClients() {
        return new OwnedClients(settings, environment);
    }
}
