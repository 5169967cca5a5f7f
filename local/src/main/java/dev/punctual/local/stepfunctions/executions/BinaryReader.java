package dev.punctual.local.stepfunctions.executions;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Reads what {@link BinaryWriter} wrote. */
final class BinaryReader {

    private final byte[] bytes;
    private int position;
    private final int limit;

    BinaryReader(byte[] bytes) {
        this(bytes, 0, bytes.length);
    }

    BinaryReader(byte[] bytes, int offset, int limit) {
        this.bytes = bytes;
        this.position = offset;
        this.limit = limit;
    }

    boolean hasMore() {
        return position < limit;
    }

    int position() {
        return position;
    }

    int readByte() {
        check(1);
        return bytes[position++] & 0xFF;
    }

    long readLong() {
        check(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (bytes[position++] & 0xFF);
        }
        return v;
    }

    int readVarInt() {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = readByte();
            v |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IllegalStateException("Malformed variable-length integer at byte " + position);
    }

    byte[] readBytes() {
        int length = readVarInt();
        check(length);
        byte[] b = Arrays.copyOfRange(bytes, position, position + length);
        position += length;
        return b;
    }

    byte[] readNullableBytes() {
        return readByte() == 0 ? null : readBytes();
    }

    String readString() {
        int length = readVarInt();
        check(length);
        String s = new String(bytes, position, length, StandardCharsets.UTF_8);
        position += length;
        return s;
    }

    String readNullableString() {
        return readByte() == 0 ? null : readString();
    }

    private void check(int n) {
        if (n < 0 || position + n > limit) {
            throw new IllegalStateException("Truncated record: needs " + n + " bytes at " + position + " of " + limit);
        }
    }
}
