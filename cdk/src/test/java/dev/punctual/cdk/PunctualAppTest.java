package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.statemachine.ExpiryMode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.Stack;

/** Which stack the app's context selects (construction only; synthesis is covered elsewhere). */
class PunctualAppTest {

    private static final String STREAM_ARN =
            "arn:aws:dynamodb:us-east-1:123456789012:table/orders_2024/stream/2024-05-01T00:00:00.000";

    @Test
    void build_withTableContext_attachesToThatTable() {
        App app = new App(AppProps.builder().context(Map.of(
                PunctualApp.CONTEXT_TABLE_NAME, "orders_2024",
                PunctualApp.CONTEXT_TABLE_STREAM_ARN, STREAM_ARN,
                PunctualApp.CONTEXT_TTL_ATTRIBUTE, "validUntil")).build());
        Stack stack = PunctualApp.build(app);
        assertThat(stack).isInstanceOf(ExistingTableStack.class);
        assertThat(stack.getStackName()).isEqualTo("Punctual-orders-2024");
        assertThat(((ExistingTableStack) stack).table().getTableStreamArn()).isEqualTo(STREAM_ARN);
    }

    @Test
    void build_withTableButNoStreamArn_failsClearly() {
        App app = new App(AppProps.builder().context(Map.of(
                PunctualApp.CONTEXT_TABLE_NAME, "orders",
                PunctualApp.CONTEXT_TTL_ATTRIBUTE, "validUntil")).build());
        assertThatThrownBy(() -> PunctualApp.build(app))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tableStreamArn");
    }

    @Test
    void build_withTableButNoTtlAttribute_asksForIt() {
        App app = new App(AppProps.builder().context(Map.of(
                PunctualApp.CONTEXT_TABLE_NAME, "orders",
                PunctualApp.CONTEXT_TABLE_STREAM_ARN, STREAM_ARN)).build());
        assertThatThrownBy(() -> PunctualApp.build(app))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-c ttlAttribute=");
    }

    @Test
    void build_withoutModeContext_isPerItem() {
        Stack stack = PunctualApp.build(new App());
        assertThat(((DemoTableStack) stack).expiry().mode()).isEqualTo(ExpiryMode.PER_ITEM);
    }

    @Test
    void build_withModeContext_setsTheModeOfDemoAndAttachedStacks() {
        Stack demo = PunctualApp.build(new App(AppProps.builder().context(Map.of(
                PunctualApp.CONTEXT_MODE, "windowed")).build()));
        assertThat(((DemoTableStack) demo).expiry().mode()).isEqualTo(ExpiryMode.WINDOWED);

        Stack attached = PunctualApp.build(new App(AppProps.builder().context(Map.of(
                PunctualApp.CONTEXT_MODE, "Windowed",
                PunctualApp.CONTEXT_TABLE_NAME, "orders_2024",
                PunctualApp.CONTEXT_TABLE_STREAM_ARN, STREAM_ARN,
                PunctualApp.CONTEXT_TTL_ATTRIBUTE, "validUntil")).build()));
        assertThat(((ExistingTableStack) attached).expiry().mode()).isEqualTo(ExpiryMode.WINDOWED);
    }

    @Test
    void build_withUnknownMode_namesTheContextKeyAndTheChoices() {
        App app = new App(AppProps.builder().context(Map.of(PunctualApp.CONTEXT_MODE, "bucketed")).build());
        assertThatThrownBy(() -> PunctualApp.build(app))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-c mode=bucketed")
                .hasMessageContaining("per-item, windowed");
    }

    @Test
    void attachStackName_replacesCharactersStackNamesRefuse() {
        assertThat(PunctualApp.attachStackName("my_table.v2")).isEqualTo("Punctual-my-table-v2");
    }
}
