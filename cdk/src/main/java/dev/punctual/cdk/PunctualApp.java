package dev.punctual.cdk;

import dev.punctual.statemachine.ExpiryMode;
import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import java.util.function.UnaryOperator;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;

/**
 * The CDK app: a demo table with Punctual ({@code cdk deploy}), or Punctual attached to an existing
 * table ({@code cdk deploy -c tableName=... -c tableStreamArn=... -c ttlAttribute=...}), either one in
 * windowed mode with {@code -c mode=windowed}. cdk-nag's AWS Solutions checks run on every synthesis,
 * so a finding fails {@code cdk synth}.
 */
public final class PunctualApp {

    /** Context: an existing table to attach to (attach mode when present). */
    public static final String CONTEXT_TABLE_NAME = "tableName";
    /** Context: that table's stream ARN (its LatestStreamArn). */
    public static final String CONTEXT_TABLE_STREAM_ARN = "tableStreamArn";
    /** Context: the TTL attribute; required in attach mode, default {@value #DEMO_TTL_ATTRIBUTE} for the demo. */
    public static final String CONTEXT_TTL_ATTRIBUTE = "ttlAttribute";
    /** Context: {@code per-item} (default) or {@code windowed}, see {@link ExpiryMode}. */
    public static final String CONTEXT_MODE = "mode";
    /** The demo table's TTL attribute. */
    public static final String DEMO_TTL_ATTRIBUTE = "expiresAt";
    /** The demo stack's name. */
    public static final String DEMO_STACK_NAME = "PunctualDemo";

    private PunctualApp() {
    }

    public static void main(String[] args) {
        App app = new App();
        build(app);
        app.synth();
    }

    /** Adds the stack the app's context asks for, and the cdk-nag checks, to {@code app}. */
    public static Stack build(App app) {
        Aspects.of(app).add(new AwsSolutionsChecks());
        StackProps stackProps = StackProps.builder().env(environment()).build();
        String tableName = context(app, CONTEXT_TABLE_NAME);
        String ttlAttribute = context(app, CONTEXT_TTL_ATTRIBUTE);
        ExpiryMode mode = mode(context(app, CONTEXT_MODE));
        UnaryOperator<PunctualExpiryProps.Builder> tuning = builder -> builder.mode(mode);
        if (tableName == null) {
            return new DemoTableStack(app, DEMO_STACK_NAME, stackProps,
                    ttlAttribute == null ? DEMO_TTL_ATTRIBUTE : ttlAttribute, tuning);
        }
        if (ttlAttribute == null) {
            throw new IllegalArgumentException("Attaching to table " + tableName + " needs its TTL attribute: "
                    + "-c " + CONTEXT_TTL_ATTRIBUTE + "=<name> (see `aws dynamodb describe-time-to-live`)");
        }
        return new ExistingTableStack(app, attachStackName(tableName), stackProps, tableName,
                context(app, CONTEXT_TABLE_STREAM_ARN), ttlAttribute, tuning);
    }

    /** Stack names allow letters, digits and hyphens; table names also allow '_' and '.'. */
    static String attachStackName(String tableName) {
        return "Punctual-" + tableName.replaceAll("[^A-Za-z0-9-]", "-");
    }

    private static ExpiryMode mode(String label) {
        if (label == null) {
            return ExpiryMode.PER_ITEM;
        }
        try {
            return ExpiryMode.fromLabel(label);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-c " + CONTEXT_MODE + "=" + label + ": " + e.getMessage(), e);
        }
    }

    private static String context(App app, String key) {
        Object value = app.getNode().tryGetContext(key);
        return value == null || value.toString().isBlank() ? null : value.toString();
    }

    /** The CLI's account and Region when it knows them; environment-agnostic otherwise (synth offline). */
    private static Environment environment() {
        return Environment.builder()
                .account(System.getenv("CDK_DEFAULT_ACCOUNT"))
                .region(System.getenv("CDK_DEFAULT_REGION"))
                .build();
    }
}
