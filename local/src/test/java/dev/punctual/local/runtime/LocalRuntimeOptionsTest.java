package dev.punctual.local.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.local.retention.RetentionSettings;
import dev.punctual.local.stepfunctions.quotas.Quota;
import dev.punctual.local.stepfunctions.quotas.QuotaSettings;
import dev.punctual.local.stream.MappingSettings;
import dev.punctual.local.time.ManualClock;
import dev.punctual.local.time.ManualTimer;
import dev.punctual.statemachine.ExpiryMode;
import dev.punctual.statemachine.StreamWiring;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LocalRuntimeOptionsTest {

    @Test
    void defaults_listenOnTheWellKnownPorts_inMemory_withCancellationAndExpiryEvents() {
        LocalRuntime.Options options = LocalRuntime.Options.defaults();

        assertThat(options.dynamoDbPort()).isEqualTo(LocalDefaults.DYNAMODB_PORT);
        assertThat(options.stepFunctionsPort()).isEqualTo(LocalDefaults.STEP_FUNCTIONS_PORT);
        assertThat(options.eventsPort()).isEqualTo(LocalDefaults.EVENTS_PORT);
        assertThat(options.dataDirectory()).isNull();
        assertThat(options.tables()).isEmpty();
        assertThat(options.cancelStale()).isTrue();
        assertThat(options.expiryEvents()).isTrue();
        assertThat(options.handlerOverHttp()).isFalse();
        assertThat(options.mode()).isEqualTo(ExpiryMode.PER_ITEM);
        assertThat(options.bucketDeleteConcurrency()).as("the construct's default")
                .isEqualTo(StreamWiring.DEFAULT_BUCKET_CONCURRENCY);
        assertThat(options.quotas().ratesEnforced()).isFalse();
        assertThat(options.timer()).isNull();
        assertThat(options.attached()).isFalse();
    }

    @Test
    void onFreePorts_isTheDefaults_onPortZero() {
        LocalRuntime.Options defaults = LocalRuntime.Options.defaults();

        assertThat(LocalRuntime.Options.onFreePorts())
                .isEqualTo(defaults.withPorts(0, 0).withEvents(true, 0))
                .isEqualTo(LocalRuntime.Options.builder().build());
    }

    @Test
    void withers_eachChangeTheirOwnSetting_andKeepEveryOther() {
        ManualTimer timer = new ManualTimer(new ManualClock(Instant.parse("2030-01-01T00:00:00Z")));
        MappingSettings mapping = MappingSettings.builder().batchSize(7).build();
        QuotaSettings quotas = QuotaSettings.ratesUnlimited();
        ExternalServices services = new ExternalServices(URI.create("http://127.0.0.1:1"), URI.create("http://127.0.0.1:2"));
        RetentionSettings retention = RetentionSettings.defaults().withOverride("events=7");

        LocalRuntime.Options options = LocalRuntime.Options.onFreePorts()
                .withPorts(1, 2)
                .withEvents(false, 3)
                .withDataDirectory(Path.of("data"))
                .withTables(Set.of("orders"))
                .withCancelStale(false)
                .withMapping(mapping)
                .withQuotas(quotas)
                .withMaxOpenExecutions(5)
                .withHandlerOverHttp(true)
                .withMode(ExpiryMode.WINDOWED)
                .withBucketDeleteConcurrency(8)
                .withTimer(timer)
                .attachedTo(services)
                .withRetention(retention);

        assertThat(options).isEqualTo(new LocalRuntime.Options(1, 2, Path.of("data"), Set.of("orders"), false, mapping,
                quotas.with(Quota.OPEN_EXECUTIONS, 5), true,
                ExpiryMode.WINDOWED, 8, false, 3, timer, services, retention));
        assertThat(options.attached()).isTrue();
        assertThat(options.maxOpenExecutions()).isEqualTo(5);
        assertThat(options.toBuilder().build()).isEqualTo(options);
    }

    @Test
    void bucketDeleteConcurrency_outsideTheConstructsBounds_isRefused_namingTheSetting() {
        LocalRuntime.Options options = LocalRuntime.Options.onFreePorts().withMode(ExpiryMode.WINDOWED);

        assertThat(options.withBucketDeleteConcurrency(1).bucketDeleteConcurrency()).isEqualTo(1);
        assertThat(options.withBucketDeleteConcurrency(StreamWiring.MAX_MAX_CONCURRENCY).bucketDeleteConcurrency())
                .isEqualTo(StreamWiring.MAX_MAX_CONCURRENCY);
        assertThatThrownBy(() -> options.withBucketDeleteConcurrency(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bucketDeleteConcurrency must be between 1 and 256, got 0");
        assertThatThrownBy(() -> options.withBucketDeleteConcurrency(StreamWiring.MAX_MAX_CONCURRENCY + 1))
                .hasMessageContaining("got 257");
    }

    @Test
    void under_givesEachPartItsOwnDirectory_orNoneInMemory() {
        assertThat(LocalRuntime.Options.onFreePorts().under("stream")).isNull();
        assertThat(LocalRuntime.Options.onFreePorts().withDataDirectory(Path.of("data")).under("stream"))
                .isEqualTo(Path.of("data", "stream"));
    }
}
