package dev.punctual.local.stepfunctions.executions;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer for the compact binary forms of history events and journal records. */
final class BinaryWriter {

    private byte[] bytes;
    private int size;

    BinaryWriter(int capacity) {
        bytes = new byte[Math.max(16, capacity)];
    }

    BinaryWriter writeByte(int b) {
        ensure(1);
        bytes[size++] = (byte) b;
        return this;
    }

    BinaryWriter writeLong(long v) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (v >>> shift);
        }
        return this;
    }

    BinaryWriter writeVarInt(int v) {
        ensure(5);
        while ((v & ~0x7F) != 0) {
            bytes[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        bytes[size++] = (byte) v;
        return this;
    }

    BinaryWriter writeBytes(byte[] b) {
        writeVarInt(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
        return this;
    }

    /** A nullable byte array: a presence flag, then the bytes. */
    BinaryWriter writeNullableBytes(byte[] b) {
        writeByte(b == null ? 0 : 1);
        return b == null ? this : writeBytes(b);
    }

    BinaryWriter writeString(String s) {
        return writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    BinaryWriter writeNullableString(String s) {
        return writeNullableBytes(s == null ? null : s.getBytes(StandardCharsets.UTF_8));
    }

    int size() {
        return size;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(size + more, bytes.length * 2));
        }
    }
}
