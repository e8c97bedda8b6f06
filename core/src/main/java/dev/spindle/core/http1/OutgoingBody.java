// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.Response;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.exchange.BodyPipe;
import dev.spindle.core.exchange.BodySource;
import dev.spindle.core.spi.Connection;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.Executor;

/**
 * A streamed response body being sent: the connection pulls its next part into the output buffer
 * only when the output has drained below the high-water mark, so a body of any size costs at most
 * the high-water mark plus one {@value #CHUNK}-byte chunk. Driven by the connection's thread only.
 */
public abstract class OutgoingBody {
    public static final int CHUNK = 32 * 1024;
    /** A chunk header of fixed width ({@code XXXX\r\n}), so it can be written before its size is known. */
    private static final int CHUNK_HEADER = 6;
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    static final int PROGRESS = 0;
    /** Nothing available yet: a producer will wake the connection. */
    static final int WAIT = 1;
    static final int END = 2;

    /** Chunked framing (unknown length on HTTP/1.1). */
    final boolean chunked;
    /** Bytes still owed when the length is known, else -1. */
    long remaining;
    /** The announced length, or -1. */
    private final long length;
    /** Body bytes committed so far (without chunk framing). */
    private long committed;

    public OutgoingBody(long length, boolean chunked) {
        this.remaining = length;
        this.length = length;
        this.chunked = chunked;
    }

    /** The body bytes sent, once the body has ended. */
    final long sentBytes() {
        return length >= 0 ? length : committed;
    }

    /** Moves the next part into {@code out}. */
    abstract int pull(OutputBuffer out) throws IOException;

    /** Releases the source; the body will not be pulled again (sent, failed, or the connection ended). */
    abstract void close();

    /**
     * Frames and takes {@code n} bytes the caller put at {@code at} (as returned by {@link #reserve}),
     * checking them against the announced length.
     */
    final void commit(OutputBuffer out, int at, int n) throws IOException {
        if (remaining >= 0) {
            if (n > remaining) {
                throw new IOException("the body is longer than its announced length");
            }
            remaining -= n;
        }
        committed += n;
        if (!chunked) {
            out.commit(n);
            return;
        }
        byte[] d = out.array();
        int h = at - CHUNK_HEADER;
        d[h] = HEX[n >>> 12 & 0xF];
        d[h + 1] = HEX[n >>> 8 & 0xF];
        d[h + 2] = HEX[n >>> 4 & 0xF];
        d[h + 3] = HEX[n & 0xF];
        d[h + 4] = '\r';
        d[h + 5] = '\n';
        d[at + n] = '\r';
        d[at + n + 1] = '\n';
        out.commit(CHUNK_HEADER + n + 2);
    }

    /** Makes room for up to {@code n} bytes plus framing; returns where the data starts. */
    final int reserve(OutputBuffer out, int n) {
        int framing = chunked ? CHUNK_HEADER + 2 : 0;
        out.ensure(n + framing + LAST_CHUNK.length);
        return out.end() + (chunked ? CHUNK_HEADER : 0);
    }

    /** Ends the body: the last chunk, or a check that the announced length was met. */
    final int finish(OutputBuffer out) throws IOException {
        if (remaining > 0) {
            throw new IOException("the body ended " + remaining + " bytes short of its announced length");
        }
        if (chunked) {
            out.ensure(LAST_CHUNK.length);
            out.put(LAST_CHUNK);
        }
        return END;
    }

    /**
     * A large whole body sent from the array it lies in rather than copied into the output buffer:
     * the strategy writes {@link #view()} once the head before it is written. {@code release}
     * runs when it is sent or dropped (the connection lets its input buffer write to the array again).
     */
    static final class InPlaceBody extends OutgoingBody {
        private final ByteBuffer view;
        private final int end;
        private final Runnable release;

        InPlaceBody(byte[] array, int offset, int length, Runnable release) {
            super(length, false);
            this.view = ByteBuffer.wrap(array, offset, length);
            this.end = offset + length;
            this.release = release;
        }

        /** The unsent rest; the caller may move its position, which is reset on the next call. */
        ByteBuffer view() {
            view.limit(end).position(end - (int) remaining);
            return view;
        }

        long count() {
            return remaining;
        }

        void sent(int n) {
            if (n > remaining) {
                throw new IllegalArgumentException("written " + n + " of " + remaining + " pending body bytes");
            }
            remaining -= n;
        }

        @Override
        int pull(OutputBuffer out) throws IOException {
            if (remaining > 0) {
                throw new IllegalStateException("a body sent in place is written by the strategy, not pulled");
            }
            return END;
        }

        @Override
        void close() {
            release.run();
        }
    }

    /** A file, read on the connection's thread or, where the strategy allows, sent by {@code transferTo}. */
    static final class FileBody extends OutgoingBody implements Connection.FileRegion {
        private final FileChannel channel;
        private long position;

        /** Sends {@code length} bytes from the channel's current position (where a range starts). */
        FileBody(FileChannel channel, long length) throws IOException {
            super(length, false);
            this.channel = channel;
            this.position = channel.position();
        }

        @Override
        int pull(OutputBuffer out) throws IOException {
            if (remaining == 0) {
                return finish(out);
            }
            int n = (int) Math.min(CHUNK, remaining);
            int at = reserve(out, n);
            int read = channel.read(ByteBuffer.wrap(out.array(), at, n), position);
            if (read < 0) {
                throw new IOException("the file ended " + remaining + " bytes short of its size when the response began");
            }
            position += read;
            commit(out, at, read);
            return PROGRESS;
        }

        @Override
        public FileChannel channel() {
            return channel;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public long count() {
            return remaining;
        }

        /** {@code n} bytes were sent directly from the file. */
        void transferred(long n) {
            position += n;
            remaining -= n;
        }

        @Override
        void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing more to do with it
            }
        }
    }

    /** An input stream read on the connection's own thread (strategies that may block there). */
    static final class InlineStreamBody extends OutgoingBody {
        private final InputStream in;

        InlineStreamBody(InputStream in, long length, boolean chunked) {
            super(length, chunked);
            this.in = in;
        }

        @Override
        int pull(OutputBuffer out) throws IOException {
            int n = remaining >= 0 ? (int) Math.min(CHUNK, remaining + 1) : CHUNK;
            if (n == 0) {
                return finish(out);
            }
            int at = reserve(out, n);
            int read = in.read(out.array(), at, n);
            if (read < 0) {
                return finish(out);
            }
            commit(out, at, read);
            return PROGRESS;
        }

        @Override
        void close() {
            try {
                in.close();
            } catch (IOException e) {
                // nothing more to do with it
            }
        }
    }

    /**
     * Bytes a producer thread writes (a {@link Response.BodyWriter}, or an input stream read off the
     * event loop) through a one-chunk {@link BodyPipe}.
     */
    static final class PipedBody extends OutgoingBody {
        private final BodyPipe pipe;

        PipedBody(BodyPipe pipe, long length, boolean chunked) {
            super(length, chunked);
            this.pipe = pipe;
        }

        /** Starts {@code writer} on {@code executor}, or on a new virtual thread when there is none. */
        static PipedBody start(Response.BodyWriter writer, long length, boolean chunked, Executor executor, Runnable wakeup) {
            return new PipedBody(BodyPipe.start(writer, CHUNK, executor, wakeup), length, chunked);
        }

        @Override
        int pull(OutputBuffer out) throws IOException {
            int n;
            // room for what is handed over, not a whole chunk: an event stream's output buffer stays
            // small; under the pipe's lock, so the producer cannot hand over a chunk in between
            synchronized (pipe) {
                int at = reserve(out, pipe.readyLength());
                n = pipe.take(out.array(), at);
                if (n > 0) {
                    commit(out, at, n);
                    return PROGRESS;
                }
            }
            if (n == BodyPipe.EMPTY) {
                return WAIT;
            }
            return finish(out);
        }

        @Override
        void close() {
            pipe.cancel();
        }
    }

    /** A body the connection takes from as it has room, with no producer thread (an event stream). */
    static final class SourceBody extends OutgoingBody {
        private final BodySource source;

        SourceBody(BodySource source, long length, boolean chunked) {
            super(length, chunked);
            this.source = source;
        }

        @Override
        int pull(OutputBuffer out) throws IOException {
            int ready = source.available(System.nanoTime());
            if (ready < 0) {
                return finish(out);
            }
            if (ready == 0) {
                return WAIT;
            }
            int n = Math.min(ready, CHUNK);
            int at = reserve(out, n);
            commit(out, at, source.take(out.array(), at, n));
            return PROGRESS;
        }

        /** Whether the source failed, looked at while the output is too full to pull: a source that overflowed ends the connection at once. */
        boolean failed() {
            try {
                source.available(System.nanoTime());
                return false;
            } catch (IOException e) {
                return true;
            }
        }

        long due() {
            return source.due();
        }

        void drain() {
            source.drain();
        }

        @Override
        void close() {
            source.cancel();
        }
    }
}
