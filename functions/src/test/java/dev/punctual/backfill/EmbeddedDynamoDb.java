package dev.punctual.backfill;

import com.amazonaws.services.dynamodbv2.local.embedded.DDBExceptionMappingInvocationHandler;
import com.amazonaws.services.dynamodbv2.local.shared.access.LocalDBClient;
import com.amazonaws.services.dynamodbv2.local.shared.access.sqlite.SQLiteDBAccess;
import com.amazonaws.services.dynamodbv2.local.shared.jobs.JobsRegister;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.concurrent.Executors;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * DynamoDB Local 2.6.1 in-process, assembled the way {@code DynamoDBEmbedded.createClient} does it
 * minus its telemetry call. That call loads a class referring to the Pinpoint SDK, which the root
 * POM excludes because the registry lacks it at the BOM's version, so {@code DynamoDBEmbedded.create()}
 * (and {@code ServerRunner}) die with {@code NoClassDefFoundError:
 * software/amazon/awssdk/services/pinpoint/model/TooManyRequestsException}.
 */
public final class EmbeddedDynamoDb implements AutoCloseable {

    private final LocalDBClient local;
    private final DynamoDbClient client;

    public EmbeddedDynamoDb() throws ReflectiveOperationException {
        local = new LocalDBClient(new SQLiteDBAccess(), new JobsRegister(Executors.newFixedThreadPool(2), false));
        Constructor<DDBExceptionMappingInvocationHandler> constructor =
                DDBExceptionMappingInvocationHandler.class.getDeclaredConstructor(LocalDBClient.class);
        constructor.setAccessible(true);
        InvocationHandler handler = constructor.newInstance(local);
        client = (DynamoDbClient) Proxy.newProxyInstance(DynamoDbClient.class.getClassLoader(),
                new Class<?>[] {DynamoDbClient.class}, handler);
    }

    public DynamoDbClient client() {
        return client;
    }

    @Override
    public void close() {
        local.shutdownNow();
    }
}
