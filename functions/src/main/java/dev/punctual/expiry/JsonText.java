package dev.punctual.expiry;

/**
 * Writes JSON string literals. The execution input is built by hand rather than with a JSON library
 * so that its bytes are fully determined here: two starts for the same item must send the very same
 * input, or Step Functions answers {@code ExecutionAlreadyExists} instead of deduplicating.
 */
public final class JsonText {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {
    }

    public static void appendString(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
