package dev.punctual.statemachine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loads the Amazon States Language definitions shipped in this module and renders their
 * {@code ${Placeholder}} substitutions, the same way CloudFormation's {@code DefinitionSubstitutions}
 * does. CDK and the local runtime both go through this class, so both run the same text.
 */
public final class StateMachineDefinitions {

    /** Classpath location of the per-item expiry workflow. */
    public static final String EXPIRE_ITEM_RESOURCE = "/statemachine/expire-item.asl.json";
    /** Classpath location of the windowed mode's bucket workflow. */
    public static final String EXPIRE_BUCKET_RESOURCE = "/statemachine/expire-bucket.asl.json";
    /** Classpath location of the windowed mode's bucket runner (an Express workflow). */
    public static final String RUN_BUCKET_RESOURCE = "/statemachine/run-bucket.asl.json";
    /** Classpath location of the backfill workflow. */
    public static final String BACKFILL_RESOURCE = "/statemachine/backfill.asl.json";

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9_]+)}");

    private StateMachineDefinitions() {
    }

    /** The raw text of {@code expire-item.asl.json}, placeholders unrendered. */
    public static String expireItemTemplate() {
        return load(EXPIRE_ITEM_RESOURCE);
    }

    /** {@code expire-item.asl.json} rendered for the given AWS partition ({@code aws}, {@code aws-cn}, ...). */
    public static String expireItem(String partition) {
        return render(expireItemTemplate(), ExpiryWorkflow.substitutions(partition));
    }

    /** The raw text of {@code expire-bucket.asl.json}, placeholders unrendered. */
    public static String expireBucketTemplate() {
        return load(EXPIRE_BUCKET_RESOURCE);
    }

    /** {@code expire-bucket.asl.json} rendered for a partition and the runner's state machine ARN. */
    public static String expireBucket(String partition, String bucketRunnerArn) {
        return render(expireBucketTemplate(), BucketWorkflow.substitutions(partition, bucketRunnerArn));
    }

    /** The raw text of {@code run-bucket.asl.json}, placeholders unrendered. */
    public static String runBucketTemplate() {
        return load(RUN_BUCKET_RESOURCE);
    }

    /** {@code run-bucket.asl.json} rendered for a partition and the bucket function's ARN. */
    public static String runBucket(String partition, String bucketFunctionArn) {
        return render(runBucketTemplate(), BucketWorkflow.runnerSubstitutions(partition, bucketFunctionArn));
    }

    /** The raw text of {@code backfill.asl.json}, placeholders unrendered. */
    public static String backfillTemplate() {
        return load(BACKFILL_RESOURCE);
    }

    /** {@code backfill.asl.json} rendered for a partition and the backfill function's ARN. */
    public static String backfill(String partition, String backfillFunctionArn) {
        return render(backfillTemplate(), BackfillWorkflow.substitutions(partition, backfillFunctionArn));
    }

    /** Names of every {@code ${Placeholder}} in a definition, sorted. */
    public static Set<String> placeholders(String template) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = PLACEHOLDER.matcher(template);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    /**
     * Replaces every {@code ${Name}} with its value.
     *
     * @throws IllegalArgumentException naming the placeholder when one has no value, because a
     *     definition deployed with a literal {@code ${Name}} fails only when the state runs
     */
    public static String render(String template, Map<String, String> substitutions) {
        Matcher matcher = PLACEHOLDER.matcher(template);
        StringBuilder rendered = new StringBuilder(template.length());
        while (matcher.find()) {
            String name = matcher.group(1);
            String value = substitutions.get(name);
            if (value == null) {
                throw new IllegalArgumentException("No substitution for ${" + name + "}; known: "
                        + new TreeSet<>(substitutions.keySet()));
            }
            matcher.appendReplacement(rendered, Matcher.quoteReplacement(value));
        }
        matcher.appendTail(rendered);
        return rendered.toString();
    }

    private static String load(String resource) {
        try (InputStream in = StateMachineDefinitions.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("State machine definition " + resource + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + resource, e);
        }
    }
}
