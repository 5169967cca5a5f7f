package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The frame every journal and snapshot record is written in, {@code [int length][int CRC32C][payload]},
 * and reading frames back. A record torn by a crash (kill -9 mid-write) fails its length or checksum,
 * and reading stops there: the tail that never became durable is dropped, nothing before it is.
 */
final class JournalFrames {

    /** Length and checksum before each payload. */
    static final int HEADER_BYTES = 8;
    private static final System.Logger LOG = System.getLogger(JournalFrames.class.getName());
    private static final int MAX_RECORD = 64 * 1024 * 1024;

    private JournalFrames() {
    }

    /** The bytes {@code record} takes framed. */
    static int framedSize(byte[] record) {
        return HEADER_BYTES + record.length;
    }

    /** Puts {@code record} framed into {@code buffer}, which must have {@link #framedSize} bytes left. */
    static void put(ByteBuffer buffer, byte[] record, CRC32C crc) {
        crc.reset();
        crc.update(record);
        buffer.putInt(record.length).putInt((int) crc.getValue()).put(record);
    }

    /**
     * Reads framed records until the end or the first damaged frame; in a snapshot, until its end marker.
     *
     * @return how many records were read
     */
    static long read(Path file, Consumer<byte[]> replay, boolean snapshot) throws IOException {
        byte[] content = Files.readAllBytes(file);
        ByteBuffer in = ByteBuffer.wrap(content);
        CRC32C crc = new CRC32C();
        long count = 0;
        while (in.remaining() >= HEADER_BYTES) {
            int length = in.getInt();
            int checksum = in.getInt();
            if (length < 0 || length > MAX_RECORD || length > in.remaining()) {
                in.position(in.position() - HEADER_BYTES);
                break;
            }
            crc.reset();
            crc.update(content, in.position(), length);
            if ((int) crc.getValue() != checksum) {
                in.position(in.position() - HEADER_BYTES);
                break;
            }
            byte[] record = new byte[length];
            in.get(record);
            if (snapshot && record.length == 1 && record[0] == JournalCodec.SNAPSHOT_END) {
                return count;
            }
            replay.accept(record);
            count++;
        }
        if (in.hasRemaining()) {
            LOG.log(System.Logger.Level.WARNING, "Ignoring " + in.remaining() + " bytes of " + file.getFileName()
                    + " after its last intact record (a write torn by a crash)");
        }
        return count;
    }

    /** Whether {@code snapshot} is intact up to its end marker: one cut short by a crash is not. */
    static boolean endsWithSnapshotEnd(Path snapshot) throws IOException {
        boolean ended = false;
        byte[] content = Files.readAllBytes(snapshot);
        ByteBuffer in = ByteBuffer.wrap(content);
        CRC32C crc = new CRC32C();
        while (in.remaining() >= HEADER_BYTES) {
            int length = in.getInt();
            int checksum = in.getInt();
            if (length < 0 || length > in.remaining()) {
                return false;
            }
            crc.reset();
            crc.update(content, in.position(), length);
            if ((int) crc.getValue() != checksum) {
                return false;
            }
            ended = length == 1 && content[in.position()] == JournalCodec.SNAPSHOT_END;
            in.position(in.position() + length);
        }
        return ended;
    }
}
