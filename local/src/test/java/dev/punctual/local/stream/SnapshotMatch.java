package dev.punctual.local.stream;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares what our stream poller did with what AWS recorded, in the form LocalStack's snapshots keep it,
 * field by field: the same field names (none missing, none extra), the same JSON types, the same values.
 *
 * <p>The snapshots replace what differs from run to run with placeholders; this reads them back as rules,
 * from what the recordings show:
 * <ul>
 *   <li>{@code <name>} or {@code <name:n>} (for example {@code <region>}, {@code <resource:1>},
 *       {@code <sequence-number:2>}, {@code <event-i-d:1>}, {@code <uuid:3>}), alone or inside a text such as
 *       {@code arn:<partition>:dynamodb:<region>:111111111111:table/<resource:1>/stream/<resource:2>}: any
 *       text, the same wherever the placeholder recurs in the case, and different from the text of every
 *       other placeholder (the snapshot library gives one value one placeholder). The account the
 *       recordings were made in reads {@code 111111111111} and is read the same way;</li>
 *   <li>{@code <timestamp:2022-07-13T13:48:01.000Z>}: a time stamp written exactly in that format (digits
 *       for digits, the rest as is);</li>
 *   <li>{@code ApproximateCreationDateTime: "<approximate-creation-datetime>"}: a number with a fraction
 *       (JSON that Python reads as a {@code float}) of 10 integer digits, epoch seconds, which is what the
 *       recording test asserts of it beyond the snapshot.</li>
 * </ul>
 * One instance holds the bindings of one case, across all its comparisons.
 */
final class SnapshotMatch {

    /** The account LocalStack writes in place of the one a recording was made in. */
    static final String RECORDED_ACCOUNT = "111111111111";
    private static final Pattern TOKEN = Pattern.compile(
            "<timestamp:[^>]+>|<[a-z0-9-]+(?::\\d+)?>|" + RECORDED_ACCOUNT);
    private static final String CREATION_TIME = "ApproximateCreationDateTime";
    private static final String CREATION_TIME_PLACEHOLDER = "<approximate-creation-datetime>";

    private final Map<String, String> valueOf = new HashMap<>();
    private final Map<String, String> placeholderOf = new HashMap<>();

    /** The differences between {@code recorded} and {@code ours} under {@code path}; none when they match. */
    List<String> compare(String path, JsonNode recorded, JsonNode ours) {
        List<String> differences = new ArrayList<>();
        compare(path, null, recorded, ours, differences);
        return differences;
    }

    private void compare(String path, String key, JsonNode recorded, JsonNode ours, List<String> out) {
        if (ours == null || ours.isMissingNode()) {
            out.add(path + ": missing; AWS has " + recorded);
            return;
        }
        if (CREATION_TIME.equals(key) && recorded.isTextual() && CREATION_TIME_PLACEHOLDER.equals(recorded.textValue())) {
            if (!ours.isFloatingPointNumber() || ours.doubleValue() < 1e9 || ours.doubleValue() >= 1e10) {
                out.add(path + ": AWS has epoch seconds as a number with a fraction (10 integer digits), ours is "
                        + ours + " (" + ours.getNodeType() + (ours.isIntegralNumber() ? ", integral" : "") + ")");
            }
            return;
        }
        if (recorded.isObject()) {
            if (!ours.isObject()) {
                out.add(path + ": AWS has an object, ours is " + describe(ours));
                return;
            }
            Set<String> names = new TreeSet<>();
            recorded.fieldNames().forEachRemaining(names::add);
            for (Iterator<String> it = ours.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                if (!recorded.has(name)) {
                    out.add(path + "." + name + ": ours has it (" + ours.get(name) + "), AWS has no such field");
                }
            }
            for (String name : names) {
                compare(path + "." + name, name, recorded.get(name), ours.get(name), out);
            }
            return;
        }
        if (recorded.isArray()) {
            if (!ours.isArray()) {
                out.add(path + ": AWS has an array, ours is " + describe(ours));
                return;
            }
            if (recorded.size() != ours.size()) {
                out.add(path + ": AWS has " + recorded.size() + " elements, ours " + ours.size());
            }
            for (int i = 0; i < Math.min(recorded.size(), ours.size()); i++) {
                compare(path + "[" + i + "]", null, recorded.get(i), ours.get(i), out);
            }
            return;
        }
        if (recorded.isTextual()) {
            if (!ours.isTextual()) {
                out.add(path + ": AWS has text " + recorded + ", ours is " + describe(ours));
                return;
            }
            text(path, recorded.textValue(), ours.textValue(), out);
            return;
        }
        if (recorded.getNodeType() != ours.getNodeType() || recorded.isNumber()
                && (recorded.isIntegralNumber() != ours.isIntegralNumber() || recorded.decimalValue().compareTo(ours.decimalValue()) != 0)
                || !recorded.isNumber() && !recorded.equals(ours)) {
            out.add(path + ": AWS has " + recorded + ", ours " + describe(ours));
        }
    }

    /** A recorded text, possibly holding placeholders, against ours. */
    private void text(String path, String recorded, String ours, List<String> out) {
        Matcher tokens = TOKEN.matcher(recorded);
        StringBuilder regex = new StringBuilder("\\A");
        List<String> groups = new ArrayList<>();
        int literalFrom = 0;
        while (tokens.find()) {
            regex.append(Pattern.quote(recorded.substring(literalFrom, tokens.start())));
            String token = tokens.group();
            if (token.startsWith("<timestamp:")) {
                regex.append(formatOf(token.substring("<timestamp:".length(), token.length() - 1)));
            } else if (valueOf.containsKey(token)) {
                regex.append(Pattern.quote(valueOf.get(token)));
            } else {
                regex.append("(.+?)");
                groups.add(token);
            }
            literalFrom = tokens.end();
        }
        regex.append(Pattern.quote(recorded.substring(literalFrom))).append("\\z");
        Matcher matcher = Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(ours);
        if (!matcher.matches()) {
            out.add(path + ": AWS has \"" + recorded + "\"" + bound(recorded) + ", ours \"" + ours + "\"");
            return;
        }
        for (int i = 0; i < groups.size(); i++) {
            String placeholder = groups.get(i);
            String value = matcher.group(i + 1);
            String earlier = valueOf.get(placeholder);
            if (earlier != null && !earlier.equals(value)) {
                // The same placeholder twice in one text, read two ways.
                out.add(path + ": " + placeholder + " reads \"" + earlier + "\" and \"" + value + "\" in \"" + ours + "\"");
                continue;
            }
            String other = placeholderOf.get(value);
            if (other != null && !other.equals(placeholder)) {
                out.add(path + ": ours \"" + value + "\" stands where AWS has " + placeholder
                        + ", but it is also what stands for " + other + " (AWS's two values differ)");
                continue;
            }
            valueOf.put(placeholder, value);
            placeholderOf.put(value, placeholder);
        }
    }

    /** What the placeholders of {@code recorded} stood for so far, for a message. */
    private String bound(String recorded) {
        Matcher tokens = TOKEN.matcher(recorded);
        List<String> known = new ArrayList<>();
        while (tokens.find()) {
            String value = valueOf.get(tokens.group());
            if (value != null) {
                known.add(tokens.group() + " = \"" + value + "\"");
            }
        }
        return known.isEmpty() ? "" : " (where so far " + String.join(", ", known) + ")";
    }

    /** A regex for text in the format of {@code example}: each digit any digit, the rest literal. */
    private static String formatOf(String example) {
        StringBuilder regex = new StringBuilder();
        for (char c : example.toCharArray()) {
            regex.append(Character.isDigit(c) ? "\\d" : Pattern.quote(String.valueOf(c)));
        }
        return regex.toString();
    }

    private static String describe(JsonNode node) {
        return node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT) + " " + node;
    }
}
