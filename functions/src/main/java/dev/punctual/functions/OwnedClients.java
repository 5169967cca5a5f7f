package dev.punctual.functions;

import dev.punctual.events.EventBridgeBus;
import dev.punctual.events.EventBus;
import dev.punctual.expiry.Executions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The clients a function builds for itself, from its environment, for the parts its caller did not
 * give it; the function closes these and only these. Both functions' {@code Collaborators} build theirs
 * here.
 */
final class OwnedClients implements AutoCloseable {

    private final ExpirySettings settings;
    private final Map<String, String> environment;
    private final List<AutoCloseable> built = new ArrayList<>();

    OwnedClients(ExpirySettings settings, Map<String, String> environment) {
        this.settings = settings;
        this.environment = environment;
    }

    /** {@code given}, or an {@link SfnExecutions} with its own HTTP client. */
    Executions executions(Executions given) {
        if (given != null) {
            return given;
        }
        SfnExecutions own = SfnExecutions.create(settings, environment);
        built.add(own);
        return own;
    }

    /** {@code given}, or a client of its own for the endpoint the environment names. */
    DynamoDbClient dynamoDb(DynamoDbClient given) {
        if (given != null) {
            return given;
        }
        DynamoDbClient own = AwsClients.dynamoDb(settings, environment);
        built.add(own);
        return own;
    }

    /**
     * {@code given}, or, when the settings name a bus, an {@link EventBridgeBus} with its own client;
     * {@code null} when expiry events are off.
     */
    EventBus eventBus(EventBus given) {
        if (given != null || settings.eventBus().isEmpty()) {
            return given;
        }
        EventBridgeBus own = new EventBridgeBus(AwsClients.eventBridge(settings, environment), settings.eventBus().get(), true);
        built.add(own);
        return own;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable client : built) {
            client.close();
        }
    }
}
