package dev.punctual.functions;

import dev.punctual.expiry.MetricSink;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Where a function built outside Lambda sends its calls: the local runtime's in-process routes to
 * its engine, to DynamoDB Local and to its metric recorder. Each part belongs to the caller and may
 * be {@code null}: the function then builds what it would build in Lambda, from its environment.
 *
 * @param stepFunctionsTransport carries the {@code SfnClient}'s requests instead of HTTP
 * @param dynamoDb the client for the table and the schedule index
 * @param metrics receives the handler's metrics; by default they go out as EMF inside Lambda only
 */
public record Routes(SdkHttpClient stepFunctionsTransport, DynamoDbClient dynamoDb, MetricSink metrics) {

    /** Everything as in Lambda: clients from the environment, metrics as EMF only inside Lambda. */
    public static final Routes FROM_ENVIRONMENT = new Routes(null, null, null);
}
