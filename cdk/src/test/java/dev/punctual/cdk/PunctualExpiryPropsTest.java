package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StreamWiring;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.ITable;
import software.amazon.awscdk.services.dynamodb.StreamViewType;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableAttributes;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;

/** Validation of props and tables, all before synthesis. */
class PunctualExpiryPropsTest {

    private static final String STREAM_ARN =
            "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2024-05-01T00:00:00.000";
    private static final Path ANY_JAR = Path.of("unused.jar");

    private static Stack stack;
    private static ITable streamed;

    @BeforeAll
    static void createStack() {
        stack = new Stack(new App(), "Validation");
        streamed = PunctualExpiry.importTable(stack, "Orders", "orders", STREAM_ARN);
    }

    private static PunctualExpiryProps.Builder valid() {
        return PunctualExpiryProps.builder().table(streamed).ttlAttribute("expiresAt").functionJar(ANY_JAR);
    }

    @Test
    void defaults_comeFromStreamWiring() {
        PunctualExpiryProps props = valid().build();
        assertThat(props.batchSize()).isEqualTo(StreamWiring.DEFAULT_BATCH_SIZE);
        assertThat(props.maxRetryAttempts()).isEqualTo(StreamWiring.DEFAULT_MAX_RETRY_ATTEMPTS);
        assertThat(props.maxRecordAge()).isEqualTo(StreamWiring.DEFAULT_MAX_RECORD_AGE);
        assertThat(props.maxConcurrency()).isEqualTo(StreamWiring.DEFAULT_MAX_CONCURRENCY);
        assertThat(props.bucketDeleteConcurrency()).isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY);
        assertThat(props.parallelizationFactor()).isEqualTo(1);
        assertThat(props.cancelStale()).isTrue();
        assertThat(props.tracing()).isFalse();
        assertThat(props.logLevel()).isEqualTo(ApplicationLogLevel.INFO);
        assertThat(props.alarmTopic()).isEmpty();
        assertThat(props.functionJar()).isEqualTo(ANY_JAR);
        assertThat(props.mode()).isEqualTo(ExpiryMode.PER_ITEM);
    }

    @Test
    void build_whenModeNull_namesTheChoices() {
        assertThatThrownBy(() -> valid().mode(null).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("mode is required")
                .hasMessageContaining("WINDOWED");
    }

    @Test
    void build_whenWindowed_cancelStaleIsOff_andAskingForItIsRejected() {
        assertThat(valid().mode(ExpiryMode.WINDOWED).build().cancelStale()).isFalse();
        assertThat(valid().mode(ExpiryMode.WINDOWED).cancelStale(false).build().cancelStale()).isFalse();
        assertThatThrownBy(() -> valid().mode(ExpiryMode.WINDOWED).cancelStale(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("windowed mode never stops executions");
        assertThat(valid().cancelStale(false).build().cancelStale()).isFalse();
    }

    @Test
    void build_whenWindowed_takesABucketDeleteConcurrencyWithinTheBounds_andNamesItOutsideThem() {
        assertThat(valid().mode(ExpiryMode.WINDOWED).build().bucketDeleteConcurrency())
                .isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY);
        assertThat(valid().mode(ExpiryMode.WINDOWED).bucketDeleteConcurrency(1).build().bucketDeleteConcurrency()).isEqualTo(1);
        assertThat(valid().mode(ExpiryMode.WINDOWED).bucketDeleteConcurrency(StreamWiring.MAX_MAX_CONCURRENCY).build()
                .bucketDeleteConcurrency()).isEqualTo(StreamWiring.MAX_MAX_CONCURRENCY);
        assertThatThrownBy(() -> valid().mode(ExpiryMode.WINDOWED).bucketDeleteConcurrency(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bucketDeleteConcurrency must be between 1 and 256, got 0");
        assertThatThrownBy(() -> valid().mode(ExpiryMode.WINDOWED)
                .bucketDeleteConcurrency(StreamWiring.MAX_MAX_CONCURRENCY + 1).build())
                .hasMessageContaining("bucketDeleteConcurrency").hasMessageContaining("got 257");
    }

    @Test
    void build_whenPerItem_bucketDeleteConcurrencyIsRejected_sinceThereIsNoBucketFunction() {
        assertThatThrownBy(() -> valid().bucketDeleteConcurrency(StreamWiring.DEFAULT_BUCKET_CONCURRENCY).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucketDeleteConcurrency applies only to modes that delete in buckets")
                .hasMessageContaining("per-item mode has no bucket function")
                .hasMessageContaining("mode(ExpiryMode.WINDOWED)");
    }

    @Test
    void build_whenTtlAttributeUnsafe_rejectsIt() {
        assertThatThrownBy(() -> valid().ttlAttribute("ex\"pires").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TTL attribute name");
        assertThatThrownBy(() -> valid().ttlAttribute(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TTL attribute name");
    }

    @Test
    void build_whenTuningOutOfTheMappingsBounds_namesTheSetting() {
        assertThatThrownBy(() -> valid().batchSize(10_001).build()).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> valid().parallelizationFactor(11).build()).hasMessageContaining("parallelizationFactor");
        assertThatThrownBy(() -> valid().maxRetryAttempts(-1).build()).hasMessageContaining("maxRetryAttempts");
        assertThatThrownBy(() -> valid().maxConcurrency(StreamWiring.MAX_MAX_CONCURRENCY + 1).build())
                .hasMessageContaining("maxConcurrency");
        assertThatThrownBy(() -> valid().maxRecordAge(Duration.ofSeconds(59)).build()).hasMessageContaining("maxRecordAge");
        assertThatThrownBy(() -> valid().maxRecordAge(Duration.ofDays(8)).build()).hasMessageContaining("maxRecordAge");
        assertThatThrownBy(() -> valid().maxRecordAge(Duration.ofMillis(90_500)).build())
                .hasMessageContaining("whole seconds");
    }

    @Test
    void importTable_whenStreamArnMissing_saysHowToFindIt() {
        assertThatThrownBy(() -> PunctualExpiry.importTable(stack, "NoStream", "orders", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tableStreamArn")
                .hasMessageContaining("aws dynamodb describe-table --table-name orders");
        assertThatThrownBy(() -> PunctualExpiry.importTable(stack, "BlankStream", "orders", " "))
                .hasMessageContaining("tableStreamArn");
    }

    @Test
    void importTable_whenStreamArnMalformedOrOfAnotherTable_rejectsIt() {
        assertThatThrownBy(() -> PunctualExpiry.importTable(stack, "TableArn", "orders",
                "arn:aws:dynamodb:us-east-1:123456789012:table/orders"))
                .hasMessageContaining("is not a DynamoDB stream ARN");
        assertThatThrownBy(() -> PunctualExpiry.importTable(stack, "OtherTable", "orders",
                "arn:aws:dynamodb:us-east-1:123456789012:table/invoices/stream/2024-05-01T00:00:00.000"))
                .hasMessageContaining("belongs to table invoices, not orders");
    }

    @Test
    void construct_whenImportedTableHasNoStreamArn_explainsTheFix() {
        ITable withoutStream = Table.fromTableAttributes(stack, "Plain",
                TableAttributes.builder().tableName("plain").build());
        PunctualExpiryProps props = PunctualExpiryProps.builder().table(withoutStream).ttlAttribute("expiresAt")
                .functionJar(ANY_JAR).build();
        assertThatThrownBy(() -> new PunctualExpiry(stack, "NoStream", props))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no stream")
                .hasMessageContaining("tableStreamArn");
    }

    @Test
    void construct_whenManagedTableStreamsKeysOnly_asksForNewAndOldImages() {
        Table keysOnly = Table.Builder.create(stack, "KeysOnly")
                .partitionKey(Attribute.builder().name("pk").type(AttributeType.STRING).build())
                .stream(StreamViewType.KEYS_ONLY).build();
        PunctualExpiryProps props = PunctualExpiryProps.builder().table(keysOnly).ttlAttribute("expiresAt")
                .functionJar(ANY_JAR).build();
        assertThatThrownBy(() -> new PunctualExpiry(stack, "KeysOnlyExpiry", props))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("streams KEYS_ONLY")
                .hasMessageContaining("NEW_AND_OLD_IMAGES");
    }
}
