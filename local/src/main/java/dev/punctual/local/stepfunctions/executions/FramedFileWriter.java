package dev.punctual.local.stepfunctions.executions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Writes a file of framed records ({@link JournalFrames}) that is complete only once {@link #finish}
 * has written the end marker and fsynced it: a snapshot, or a closed-execution file. Records are
 * buffered, so a file of many small records costs few writes.
 */
final class FramedFileWriter implements AutoCloseable {

    private static final int BUFFER_BYTES = 1 << 20;

    private final FileChannel out;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
    private final CRC32C crc = new CRC32C();
    private long records;

    FramedFileWriter(Path file) throws IOException {
        this.out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
    }

    /** Appends one record; unchecked, since records come from callbacks that cannot throw. */
    void write(byte[] record) {
        put(record);
        records++;
    }

    private void put(byte[] record) {
        try {
            int framed = JournalFrames.framedSize(record);
            if (buffer.remaining() < framed) {
                drain(buffer);
            }
            if (framed > buffer.capacity()) {
                ByteBuffer big = ByteBuffer.allocate(framed);
                JournalFrames.put(big, record, crc);
                drain(big);
            } else {
                JournalFrames.put(buffer, record, crc);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Records written so far, the end marker not counted. */
    long records() {
        return records;
    }

    /**
     * Writes the end marker and fsyncs.
     *
     * @return the file's size
     */
    long finish() throws IOException {
        put(JournalCodec.snapshotEnd());
        drain(buffer);
        out.force(true);
        return out.size();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    private void drain(ByteBuffer from) throws IOException {
        from.flip();
        while (from.hasRemaining()) {
            out.write(from);
        }
        from.clear();
    }
}
