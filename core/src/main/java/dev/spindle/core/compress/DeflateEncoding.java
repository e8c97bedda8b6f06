// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import dev.spindle.core.ContentEncoding;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * {@code gzip} and {@code deflate} from the JDK's {@link Deflater}. A deflater holds about 256 KiB
 * of native memory, so they are pooled with their buffers: a body borrows one for as long as it is
 * being compressed (a whole body: one call; a streamed one: until it ends) and gives it back reset;
 * at most {@link #POOLED} wait in the pool, and any beyond that are ended at once.
 */
public final class DeflateEncoding implements ContentEncoding {
    /** Idle deflaters kept per encoding: enough for the threads that compress at once on a busy server (set before the shared encodings are made). */
    static final int POOLED = Math.clamp(2L * Runtime.getRuntime().availableProcessors(), 4, 64);
    public static final DeflateEncoding GZIP = new DeflateEncoding(true, 6);
    public static final DeflateEncoding DEFLATE = new DeflateEncoding(false, 6);
    /** A buffer grown past this for a large body is not kept in the pool. */
    private static final int RETAINED_BUFFER = 64 * 1024;
    private static final int BUFFER = 16 * 1024;
    /** ID1 ID2 CM=8 FLG=0 MTIME=0 XFL=0 OS=255 (unknown): RFC 1952 2.3. */
    private static final byte[] GZIP_HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final boolean gzip;
    private final int level;
    private final Work[] idle = new Work[POOLED];
    private int idleCount;

    private DeflateEncoding(boolean gzip, int level) {
        this.gzip = gzip;
        this.level = level;
    }

    /** {@code gzip} ({@code true}) or {@code deflate} at {@code level}, 1..9. */
    public static DeflateEncoding of(boolean gzip, int level) {
        if (level < 1 || level > 9) {
            throw new IllegalArgumentException("a deflate level is 1..9, got " + level);
        }
        return level == 6 ? gzip ? GZIP : DEFLATE : new DeflateEncoding(gzip, level);
    }

    @Override
    public String name() {
        return gzip ? "gzip" : "deflate";
    }

    @Override
    public OutputStream encoder(OutputStream sink) {
        return new Stream(sink);
    }

    /** A deflater with its buffers, borrowed by one body at a time. */
    static final class Work {
        final Deflater deflater;
        final CRC32 crc = new CRC32();
        byte[] out = new byte[BUFFER];
        /** Where a string body is copied as bytes, a piece at a time. */
        byte[] in;

        Work(Deflater deflater) {
            this.deflater = deflater;
        }
    }

    Work take() {
        synchronized (this) {
            if (idleCount > 0) {
                Work w = idle[--idleCount];
                idle[idleCount] = null;
                return w;
            }
        }
        // raw deflate for gzip, whose header and trailer are written here; zlib's own wrapper for deflate
        return new Work(new Deflater(level, gzip));
    }

    void give(Work w) {
        w.deflater.reset();
        w.crc.reset();
        synchronized (this) {
            if (idleCount < idle.length) {
                idle[idleCount++] = w;
                return;
            }
        }
        w.deflater.end();
    }

    /** Idle deflaters in the pool, for tests. */
    synchronized int idle() {
        return idleCount;
    }

    /** {@code body[offset, offset + length)} encoded whole, into a new array of the exact size. */
    byte[] encode(byte[] body, int offset, int length) {
        Work w = take();
        try {
            w.deflater.setInput(body, offset, length);
            if (gzip) {
                w.crc.update(body, offset, length);
            }
            return finish(w, start(w), length);
        } finally {
            give(w);
        }
    }

    /** The buffer's remaining bytes encoded whole; its position is left as it was. */
    byte[] encode(ByteBuffer body) {
        Work w = take();
        try {
            w.deflater.setInput(body.duplicate());
            if (gzip) {
                w.crc.update(body.duplicate());
            }
            return finish(w, start(w), body.remaining());
        } finally {
            give(w);
        }
    }

    /** A string encoded as UTF-8 and compressed whole; an ASCII one is copied a piece at a time, never whole. */
    byte[] encode(String body) {
        int n = body.length();
        for (int i = 0; i < n; i++) {
            if (body.charAt(i) >= 0x80) {
                byte[] utf8 = body.getBytes(StandardCharsets.UTF_8);
                return encode(utf8, 0, utf8.length);
            }
        }
        Work w = take();
        try {
            if (w.in == null) {
                w.in = new byte[BUFFER];
            }
            byte[] in = w.in;
            int at = start(w);
            for (int from = 0; from < n; ) {
                int piece = Math.min(in.length, n - from);
                for (int i = 0; i < piece; i++) {
                    in[i] = (byte) body.charAt(from + i);
                }
                from += piece;
                if (gzip) {
                    w.crc.update(in, 0, piece);
                }
                w.deflater.setInput(in, 0, piece);
                while (!w.deflater.needsInput()) {
                    at = deflate(w, at, Deflater.NO_FLUSH);
                }
            }
            return finish(w, at, n);
        } finally {
            give(w);
        }
    }

    private int start(Work w) {
        if (!gzip) {
            return 0;
        }
        System.arraycopy(GZIP_HEADER, 0, w.out, 0, GZIP_HEADER.length);
        return GZIP_HEADER.length;
    }

    /** Deflates into {@code w.out} from {@code at}, growing it when full; returns the new end. */
    private static int deflate(Work w, int at, int flush) {
        if (at == w.out.length) {
            w.out = Arrays.copyOf(w.out, w.out.length * 2);
        }
        return at + w.deflater.deflate(w.out, at, w.out.length - at, flush);
    }

    private byte[] finish(Work w, int at, long length) {
        w.deflater.finish();
        while (!w.deflater.finished()) {
            at = deflate(w, at, Deflater.NO_FLUSH);
        }
        if (w.out.length - at < 8) {
            w.out = Arrays.copyOf(w.out, at + 8);
        }
        at = trailer(w, w.out, at, length);
        byte[] result = Arrays.copyOf(w.out, at);
        if (w.out.length > RETAINED_BUFFER) {
            w.out = new byte[BUFFER];
        }
        return result;
    }

    /** gzip's CRC-32 and ISIZE, little-endian (RFC 1952 2.3.1); the deflater ended a zlib stream itself. */
    private int trailer(Work w, byte[] out, int at, long length) {
        if (!gzip) {
            return at;
        }
        int crc = (int) w.crc.getValue();
        int size = (int) length;
        for (int i = 0; i < 4; i++) {
            out[at + i] = (byte) (crc >>> 8 * i);
            out[at + 4 + i] = (byte) (size >>> 8 * i);
        }
        return at + 8;
    }

    /** The streaming form: a deflater borrowed until {@link #close()}, a sync flush on {@link #flush()}. */
    private final class Stream extends OutputStream {
        private final OutputStream sink;
        private Work work;
        private long length;
        private boolean started;
        private boolean closed;

        Stream(OutputStream sink) {
            this.sink = sink;
        }

        private Work work() throws IOException {
            if (closed) {
                throw new IOException("the compressing stream is closed");
            }
            if (work == null) {
                work = take();
            }
            if (!started) {
                started = true;
                int n = start(work);
                if (n > 0) {
                    sink.write(work.out, 0, n);
                }
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
            if (len == 0) {
                return;
            }
            Work w = work();
            length += len;
            if (gzip) {
                w.crc.update(b, off, len);
            }
            w.deflater.setInput(b, off, len);
            while (!w.deflater.needsInput()) {
                drain(w, Deflater.NO_FLUSH);
            }
        }

        private int drain(Work w, int flush) throws IOException {
            int n = w.deflater.deflate(w.out, 0, w.out.length, flush);
            if (n > 0) {
                sink.write(w.out, 0, n);
            }
            return n;
        }

        /** What was written so far goes to the sink as a complete deflate block the client can decode now. */
        @Override
        public void flush() throws IOException {
            Work w = work();
            while (drain(w, Deflater.SYNC_FLUSH) == w.out.length) {
                // a full buffer: there may be more
            }
            sink.flush();
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            try {
                Work w = work();
                w.deflater.finish();
                while (!w.deflater.finished()) {
                    drain(w, Deflater.NO_FLUSH);
                }
                int n = trailer(w, w.out, 0, length);
                if (n > 0) {
                    sink.write(w.out, 0, n);
                }
            } finally {
                closed = true;
                if (work != null) {
                    give(work);
                    work = null;
                }
            }
        }
    }
}
