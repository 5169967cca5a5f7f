package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import software.amazon.awscdk.services.events.EventBus;
import java.util.Map;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;
import software.amazon.awscdk.services.sns.Topic;

/**
 * The stack configurations the CDK tests assert on, each synthesized once per test JVM (jsii start-up
 * and synthesis take seconds): the app's demo stack with defaults, an existing table with every option
 * changed from its default, and the same two in windowed mode.
 */
final class SynthesizedStacks {

    static final String ATTACHED_TABLE = "orders.v2";
    static final String ATTACHED_STREAM_ARN =
            "arn:aws:dynamodb:eu-west-1:123456789012:table/orders.v2/stream/2024-05-01T00:00:00.000";
    static final String ATTACHED_TTL = "validUntil";
    static final java.time.Duration ATTACHED_LAG_THRESHOLD = java.time.Duration.ofMillis(2_500);
    static final String ALARM_TOPIC_ARN = "arn:aws:sns:eu-west-1:123456789012:punctual-alarms";
    static final String EVENT_BUS_ARN = "arn:aws:events:eu-west-1:123456789012:event-bus/orders-expiries";
    static final int ATTACHED_BUCKET_DELETE_CONCURRENCY = 128;

    /** One synthesized configuration. */
    record Synthesized(PunctualExpiry expiry, TemplateJson template, Stack stack) {
    }

    private SynthesizedStacks() {
    }

    /** {@link PunctualApp} without context: the demo table and all defaults, cdk-nag included. */
    static Synthesized demo() {
        return Demo.INSTANCE;
    }

    /**
     * An imported table with cancelStale off, tracing on, an alarm topic, non-default tuning, and expiry
     * events with old images to an imported bus, cdk-nag included.
     */
    static Synthesized attached() {
        return Attached.INSTANCE;
    }

    /** {@link PunctualApp} with {@code -c mode=windowed}: the demo table in windowed mode, cdk-nag included. */
    static Synthesized windowed() {
        return Windowed.INSTANCE;
    }

    /**
     * An imported table in windowed mode with tracing on, an alarm topic, expiry events to the default
     * bus and a bucket delete concurrency of {@link #ATTACHED_BUCKET_DELETE_CONCURRENCY}, cdk-nag included.
     */
    static Synthesized windowedAttached() {
        return WindowedAttached.INSTANCE;
    }

    private static final class Demo {
        static final Synthesized INSTANCE = create();

        private static Synthesized create() {
            App app = new App();
            DemoTableStack stack = (DemoTableStack) PunctualApp.build(app);
            return new Synthesized(stack.expiry(), TemplateJson.synthesize(stack), stack);
        }
    }

    private static final class Attached {
        static final Synthesized INSTANCE = create();

        private static Synthesized create() {
            App app = new App();
            Aspects.of(app).add(new AwsSolutionsChecks());
            ExistingTableStack stack = new ExistingTableStack(app, "Attached", StackProps.builder().build(),
                    ATTACHED_TABLE, ATTACHED_STREAM_ARN, ATTACHED_TTL, builder -> builder
                            .cancelStale(false)
                            .tracing(true)
                            .alarmTopic(Topic.fromTopicArn(new Stack(app, "Shared"), "AlarmTopic", ALARM_TOPIC_ARN))
                            .batchSize(500)
                            .parallelizationFactor(4)
                            .maxRetryAttempts(3)
                            .maxRecordAge(java.time.Duration.ofHours(2))
                            .logLevel(ApplicationLogLevel.DEBUG)
                            .maxConcurrency(64)
                            .lagAlarmThreshold(ATTACHED_LAG_THRESHOLD)
                            .expiryEvents(EventBus.fromEventBusArn(new Stack(app, "Events"), "Bus", EVENT_BUS_ARN))
                            .includeOldImage(true));
            return new Synthesized(stack.expiry(), TemplateJson.synthesize(stack), stack);
        }
    }

    private static final class Windowed {
        static final Synthesized INSTANCE = create();

        private static Synthesized create() {
            App app = new App(AppProps.builder().context(Map.of(PunctualApp.CONTEXT_MODE,
                    ExpiryMode.WINDOWED.label())).build());
            DemoTableStack stack = (DemoTableStack) PunctualApp.build(app);
            return new Synthesized(stack.expiry(), TemplateJson.synthesize(stack), stack);
        }
    }

    private static final class WindowedAttached {
        static final Synthesized INSTANCE = create();

        private static Synthesized create() {
            App app = new App();
            Aspects.of(app).add(new AwsSolutionsChecks());
            ExistingTableStack stack = new ExistingTableStack(app, "WindowedAttached", StackProps.builder().build(),
                    ATTACHED_TABLE, ATTACHED_STREAM_ARN, ATTACHED_TTL, builder -> builder
                            .mode(ExpiryMode.WINDOWED)
                            .bucketDeleteConcurrency(ATTACHED_BUCKET_DELETE_CONCURRENCY)
                            .tracing(true)
                            .alarmTopic(Topic.fromTopicArn(new Stack(app, "Shared"), "AlarmTopic", ALARM_TOPIC_ARN))
                            .expiryEvents(EventBus.fromEventBusName(new Stack(app, "Events"), "DefaultBus", "default")));
            return new Synthesized(stack.expiry(), TemplateJson.synthesize(stack), stack);
        }
    }
}
