package dev.punctual.junit;

import dev.punctual.local.runtime.LocalRuntime;
import dev.punctual.statemachine.ExpiryMode;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Starts Punctual's embedded runtime (DynamoDB Local, the stream mapping, the Step Functions engine,
 * Punctual's functions) for a test class on free loopback ports, and closes it after the class. Test
 * methods (and {@code @BeforeAll}/{@code @BeforeEach} methods) ask for what they need as parameters:
 * {@link DynamoDbClient}, {@link DynamoDbAsyncClient}, {@link ExpiryTables}, {@link ExpiredItems},
 * {@link PunctualTime}, {@link Clock} (the runtime's, for the code under test) and {@link LocalRuntime}.
 *
 * <pre>{@code
 * @RegisterExtension
 * static PunctualExtension punctual = PunctualExtension.inMode(ExpiryMode.WINDOWED);
 *
 * @Test
 * void sessionEndsAfterThirtyMinutes(DynamoDbClient dynamoDb, ExpiryTables tables, PunctualTime time) { ... }
 * }</pre>
 *
 * {@code @ExtendWith(PunctualExtension.class)} gives the defaults: per-item mode, one runtime per class,
 * time the test controls starting at the wall clock's current second.
 */
public final class PunctualExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PunctualExtension.class);
    private static final Map<Class<?>, Function<PunctualRuntime, Object>> PARAMETERS = Map.of(
            DynamoDbClient.class, started -> started.dynamoDb,
            DynamoDbAsyncClient.class, started -> started.dynamoDbAsync,
            ExpiryTables.class, started -> started.tables,
            ExpiredItems.class, started -> started.expired,
            PunctualTime.class, started -> started.time,
            Clock.class, started -> started.time.clock(),
            LocalRuntime.class, started -> started.runtime);

    private final ExpiryMode mode;
    private final boolean perJvm;
    private final boolean realTime;
    private final Instant start;

    /** Per-item mode, a runtime per test class, time the test controls from the current second. */
    public PunctualExtension() {
        this(ExpiryMode.PER_ITEM, false, false, null);
    }

    private PunctualExtension(ExpiryMode mode, boolean perJvm, boolean realTime, Instant start) {
        this.mode = Objects.requireNonNull(mode, "mode");
        this.perJvm = perJvm;
        this.realTime = realTime;
        this.start = start;
    }

    /** A runtime per test class in {@code mode}, time the test controls from the current second. */
    public static PunctualExtension inMode(ExpiryMode mode) {
        return new PunctualExtension(mode, false, false, null);
    }

    /**
     * One runtime for every class in the JVM that registers an extension with the same mode and kind of
     * time; closed when the JVM's tests end. Classes sharing it share its tables and its time.
     */
    public PunctualExtension sharedPerJvm() {
        return new PunctualExtension(mode, true, realTime, start);
    }

    /** The wall clock instead of time the test controls: {@link PunctualTime#advance} then sleeps. */
    public PunctualExtension realTime() {
        return new PunctualExtension(mode, perJvm, true, null);
    }

    /** Time the test controls, starting at {@code instant} rather than at the wall clock's current second. */
    public PunctualExtension startingAt(Instant instant) {
        if (realTime) {
            throw new IllegalStateException("Real time starts where the wall clock is; drop realTime() to choose a start");
        }
        return new PunctualExtension(mode, perJvm, false, Objects.requireNonNull(instant, "instant"));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        started(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return PARAMETERS.containsKey(parameter.getParameter().getType());
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Function<PunctualRuntime, Object> part = PARAMETERS.get(parameter.getParameter().getType());
        if (part == null) {
            throw new ParameterResolutionException("PunctualExtension does not provide " + parameter.getParameter().getType());
        }
        return part.apply(started(context));
    }

    private PunctualRuntime started(ExtensionContext context) {
        String key = "runtime:" + mode.name() + (realTime ? ":real" : ":controlled");
        ExtensionContext owner = perJvm ? context.getRoot() : classContext(context);
        return owner.getStore(NAMESPACE).getOrComputeIfAbsent(key, k -> PunctualRuntime.start(mode,
                realTime ? null : (start != null ? start : Instant.now().truncatedTo(ChronoUnit.SECONDS))),
                PunctualRuntime.class);
    }

    /** The outermost class context above {@code context}: nested classes share their enclosing class's runtime. */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        ExtensionContext outermostClass = null;
        while (current != null && current != current.getRoot()) {
            if (current.getTestMethod().isEmpty() && current.getTestClass().isPresent()) {
                outermostClass = current;
            }
            current = current.getParent().orElse(null);
        }
        return outermostClass != null ? outermostClass : context;
    }
}
