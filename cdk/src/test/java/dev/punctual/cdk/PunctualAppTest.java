package dev.punctual.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void attachStackName_replacesCharactersStackNamesRefuse() {
        assertThat(PunctualApp.attachStackName("my_table.v2")).isEqualTo("Punctual-my-table-v2");
    }
}
