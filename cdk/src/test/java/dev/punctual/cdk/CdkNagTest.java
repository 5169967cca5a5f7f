package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.cxapi.SynthesisMessage;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.sqs.QueueProps;

/**
 * cdk-nag's AWS Solutions pack finds nothing unsuppressed in any configuration (defaults, and every
 * option flipped: tracing on changes which suppressions apply; each in both modes).
 */
class CdkNagTest {

    static Stream<Arguments> configurations() {
        return Stream.of(Arguments.of("demo", SynthesizedStacks.demo()),
                Arguments.of("attached", SynthesizedStacks.attached()),
                Arguments.of("windowed", SynthesizedStacks.windowed()),
                Arguments.of("windowed attached", SynthesizedStacks.windowedAttached()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configurations")
    void awsSolutionsChecks_reportNoErrorsOrWarnings(String name, SynthesizedStacks.Synthesized synthesized) {
        Annotations annotations = Annotations.fromStack(synthesized.stack());
        List<SynthesisMessage> errors = annotations.findError("*", Match.stringLikeRegexp("AwsSolutions-.*"));
        List<SynthesisMessage> warnings = annotations.findWarning("*", Match.stringLikeRegexp("AwsSolutions-.*"));
        assertThat(errors).extracting(m -> m.getId() + " " + m.getEntry().getData()).isEmpty();
        assertThat(warnings).extracting(m -> m.getId() + " " + m.getEntry().getData()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configurations")
    void noOtherSynthesisWarnings(String name, SynthesizedStacks.Synthesized synthesized) {
        List<SynthesisMessage> warnings = Annotations.fromStack(synthesized.stack()).findWarning("*", Match.anyValue());
        assertThat(warnings).extracting(m -> m.getId() + " " + m.getEntry().getData()).isEmpty();
    }

    @Test
    void checksDoRun_anUnencryptedQueueIsReported() {
        // Without this canary an empty finding list could also mean the aspect never ran.
        App app = new App();
        Aspects.of(app).add(new AwsSolutionsChecks());
        Stack stack = new Stack(app, "Canary");
        new Queue(stack, "Plain", QueueProps.builder().encryption(QueueEncryption.UNENCRYPTED).build());
        assertThat(Annotations.fromStack(stack).findError("*", Match.stringLikeRegexp("AwsSolutions-SQS.*")))
                .isNotEmpty();
    }
}
