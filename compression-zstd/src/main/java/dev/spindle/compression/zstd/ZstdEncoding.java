// SPDX-License-Identifier: Apache-2.0
package dev.spindle.compression.zstd;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.ZstdCompressCtx;
import dev.spindle.core.ContentEncoding;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * The {@code zstd} content coding (RFC 8878, for HTTP RFC 9659) over zstd-jni, for Spindle's
 * response compression. It is registered explicitly, first to be preferred where clients accept it
 * (browsers and curl do), beside gzip for the others:
 *
 * <pre>{@code
 * Router.builder().compression(Compression.defaults().encodings(ZstdEncoding.create(), ContentEncoding.gzip()))
 * }</pre>
 *
 * <p>Compression contexts (native memory, about 1 MiB at the default level) are pooled: a body
 * borrows one while it is compressed and gives it back reset; at most {@link #POOLED} wait idle,
 * others are closed. Levels go up to 19, whose window (8 MiB) is the most RFC 9659 lets a client
 * be asked to hold. On the module path, zstd-jni loads its native library: run with
 * {@code --enable-native-access=com.github.luben.zstd_jni} to keep the JDK from warning about it.
 */
public final class ZstdEncoding implements ContentEncoding {
    /** Idle contexts kept per encoding. */
    public static final int POOLED = Math.clamp(Runtime.getRuntime().availableProcessors(), 2, 16);
    private static final int BUFFER = 16 * 1024;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final int level;
    private final Work[] idle = new Work[POOLED];
    private int idleCount;

    private ZstdEncoding(int level) {
        this.level = level;
    }

    /**
     * zstd at level 3, zstd's own default: faster than gzip's level 6, and smaller.
     *
     * @return a new encoding with its own pool of contexts; share one per application
     */
    public static ZstdEncoding create() {
        return new ZstdEncoding(3);
    }

    /**
     * zstd at another level.
     *
     * @param level 1 (fastest) to 19 (smallest)
     * @return a new encoding with its own pool of contexts; share one per application
     * @throws IllegalArgumentException if {@code level} is not within 1..19
     */
    public static ZstdEncoding level(int level) {
        if (level < 1 || level > 19) {
            throw new IllegalArgumentException("a zstd level for HTTP is 1..19, got " + level);
        }
        return new ZstdEncoding(level);
    }

    /**
     * The token, {@code zstd}.
     *
     * @return {@code "zstd"}
     */
    @Override
    public String name() {
        return "zstd";
    }

    /**
     * A stream compressing into {@code sink}: {@code flush()} ends a zstd block the client can
     * decode at once, {@code close()} ends the frame and gives the context back.
     *
     * @param sink where the frame goes
     * @return the compressing stream
     */
    @Override
    public OutputStream encoder(OutputStream sink) {
        return new Stream(sink);
    }

    /**
     * The idle contexts in the pool.
     *
     * @return how many wait to be reused
     */
    public synchronized int idle() {
        return idleCount;
    }

    /** A context with its output buffer, borrowed by one body at a time. */
    private static final class Work {
        final ZstdCompressCtx ctx = new ZstdCompressCtx();
        final ByteBuffer out = ByteBuffer.allocate(BUFFER);
    }

    private Work take() {
        Work w = null;
        synchronized (this) {
            if (idleCount > 0) {
                w = idle[--idleCount];
                idle[idleCount] = null;
            }
        }
        if (w == null) {
            w = new Work();
        }
        // a reset clears the parameters too: the level is set for every body
        w.ctx.setLevel(level);
        return w;
    }

    private void give(Work w, boolean clean) {
        if (clean) {
            w.ctx.reset();
            synchronized (this) {
                if (idleCount < idle.length) {
                    idle[idleCount++] = w;
                    return;
                }
            }
        }
        w.ctx.close();
    }

    private final class Stream extends OutputStream {
        private final OutputStream sink;
        private Work work;
        private boolean closed;

        Stream(OutputStream sink) {
            this.sink = sink;
        }

        private Work work() throws IOException {
            if (closed) {
                throw new IOException("the zstd stream is closed");
            }
            if (work == null) {
                work = take();
            }
            return work;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (len > 0) {
                run(work(), ByteBuffer.wrap(b, off, len), EndDirective.CONTINUE);
            }
        }

        @Override
        public void flush() throws IOException {
            run(work(), EMPTY, EndDirective.FLUSH);
            sink.flush();
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            boolean ended = false;
            try {
                run(work(), EMPTY, EndDirective.END);
                ended = true;
            } finally {
                closed = true;
                if (work != null) {
                    // a context left in the middle of a frame is not reused
                    give(work, ended);
                    work = null;
                }
            }
        }

        /** Compresses {@code src} with {@code directive}, handing the output to the sink as the buffer fills. */
        private void run(Work w, ByteBuffer src, EndDirective directive) throws IOException {
            boolean done;
            do {
                w.out.clear();
                done = w.ctx.compressByteBufferStream(w.out, src, directive);
                if (w.out.position() > 0) {
                    sink.write(w.out.array(), 0, w.out.position());
                }
            } while (directive == EndDirective.CONTINUE ? src.hasRemaining() : !done);
        }
    }
}
