package dev.punctual.local.stepfunctions.asl.intrinsics;

import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.punctual.local.stepfunctions.asl.paths.JsonPaths;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses intrinsic-function text such as {@code States.Format('Hello, {}', $.name)}: nested calls,
 * single-quoted strings with the escapes {@code \'} {@code \{} {@code \}} {@code \\}, numbers,
 * {@code true}/{@code false}/{@code null}, paths and context paths.
 */
public final class IntrinsicParser {

    private final String text;
    private int pos;

    private IntrinsicParser(String text) {
        this.text = text;
    }

    /** Whether a {@code .$} field's value is an intrinsic call rather than a path. */
    public static boolean looksLikeCall(String text) {
        return text != null && text.startsWith("States.");
    }

    /**
     * Parses one call and checks the function exists and gets an acceptable number of arguments.
     *
     * @throws IllegalArgumentException saying what is wrong and where
     */
    public static IntrinsicExpression.Call parse(String text) {
        IntrinsicParser parser = new IntrinsicParser(text);
        parser.skipSpaces();
        IntrinsicExpression.Call call = parser.call();
        parser.skipSpaces();
        if (parser.pos != text.length()) {
            throw parser.error("unexpected text after the closing parenthesis");
        }
        return call;
    }

    private IntrinsicExpression.Call call() {
        int start = pos;
        while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '.')) {
            pos++;
        }
        String name = text.substring(start, pos);
        if (!IntrinsicFunctions.isKnown(name)) {
            throw error("unknown intrinsic function '" + name + "'");
        }
        skipSpaces();
        expect('(');
        List<IntrinsicExpression> arguments = new ArrayList<>();
        skipSpaces();
        if (peek() == ')') {
            pos++;
        } else {
            while (true) {
                skipSpaces();
                arguments.add(argument());
                skipSpaces();
                char c = peek();
                pos++;
                if (c == ')') {
                    break;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or ')'");
                }
            }
        }
        IntrinsicFunctions.checkArity(name, arguments.size());
        return new IntrinsicExpression.Call(name, List.copyOf(arguments));
    }

    private IntrinsicExpression argument() {
        char c = peek();
        if (c == '\'') {
            return string();
        }
        if (c == '$') {
            return path();
        }
        if (c == '-' || Character.isDigit(c)) {
            return number();
        }
        if (text.startsWith("States.", pos)) {
            return call();
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (text.startsWith(word, pos)) {
                pos += word.length();
                return new IntrinsicExpression.Literal(switch (word) {
                    case "true" -> BooleanNode.TRUE;
                    case "false" -> BooleanNode.FALSE;
                    default -> NullNode.getInstance();
                }, word);
            }
        }
        throw error("expected a string, number, boolean, null, path or intrinsic function");
    }

    private IntrinsicExpression string() {
        int start = pos;
        pos++;
        StringBuilder value = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '\\') {
                if (pos >= text.length()) {
                    break;
                }
                char escaped = text.charAt(pos++);
                if (escaped != '\'' && escaped != '{' && escaped != '}' && escaped != '\\') {
                    throw error("invalid escape '\\" + escaped + "' in a string; only \\' \\{ \\} \\\\ are allowed");
                }
                value.append(escaped);
            } else if (c == '\'') {
                return new IntrinsicExpression.Literal(TextNode.valueOf(value.toString()),
                        text.substring(start + 1, pos - 1));
            } else {
                value.append(c);
            }
        }
        throw error("unterminated string starting at " + start);
    }

    private IntrinsicExpression number() {
        int start = pos;
        pos++;
        while (pos < text.length() && (Character.isDigit(text.charAt(pos)) || "+-.eE".indexOf(text.charAt(pos)) >= 0)) {
            pos++;
        }
        String literal = text.substring(start, pos);
        try {
            BigDecimal number = new BigDecimal(literal);
            if (literal.matches("-?\\d+") && number.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
                return new IntrinsicExpression.Literal(LongNode.valueOf(number.longValueExact()), literal);
            }
            return new IntrinsicExpression.Literal(DecimalNode.valueOf(number), literal);
        } catch (NumberFormatException | ArithmeticException e) {
            pos = start;
            throw error("'" + literal + "' is not a number");
        }
    }

    private IntrinsicExpression path() {
        int start = pos;
        int depth = 0;
        char quote = 0;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '[' || c == '(') {
                depth++;
            } else if (c == ']' || (c == ')' && depth > 0)) {
                depth--;
            } else if (depth == 0 && (c == ',' || c == ')')) {
                break;
            }
            pos++;
        }
        String path = text.substring(start, pos).trim();
        try {
            return new IntrinsicExpression.PathRef(JsonPaths.compile(path));
        } catch (IllegalArgumentException e) {
            throw error(e.getMessage());
        }
    }

    private char peek() {
        if (pos >= text.length()) {
            throw error("unexpected end of the expression");
        }
        return text.charAt(pos);
    }

    private void expect(char c) {
        if (pos >= text.length() || text.charAt(pos) != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private void skipSpaces() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("Invalid intrinsic function '" + text + "' at character " + pos + ": " + what);
    }
}
