// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.Response;
import dev.spindle.core.exchange.BodyPipe;
import dev.spindle.core.exchange.BodySource;
import dev.spindle.core.exchange.ResponseState;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.Executor;

/**
 * A streamed response body sent in DATA frames: the connection reads its next part into the
 * stream's chunk only when the chunk before it went out, so a body of any size costs one chunk
 * per stream. A file or (on a thread that may block) an input stream is read on the connection's
 * thread; a {@link Response.BodyWriter}, or an input stream on an event loop, writes on the
 * blocking executor through a one-chunk {@link BodyPipe}.
 */
abstract class OutgoingData {
    /** The size of a stream's chunk: one DATA frame of the default size. */
    static final int CHUNK = 16 * 1024;
    /** Nothing available yet: the producer will wake the connection. */
    static final int WAIT = 0;
    static final int END = -1;

    private long remaining;
    private long sent;

    OutgoingData(long length) {
        this.remaining = length;
    }

    /**
     * The next part into {@code dst}, from 0.
     *
     * @return bytes read, {@link #WAIT} or {@link #END}
     * @throws IOException if the source failed, or gave more or fewer bytes than its announced length
     */
    final int read(byte[] dst) throws IOException {
        int n = readSome(dst);
        if (n > 0) {
            sent += n;
            if (remaining >= 0 && (remaining -= n) < 0) {
                throw new IOException("the body is longer than its announced length");
            }
        } else if (n == END && remaining > 0) {
            throw new IOException("the body ended " + remaining + " bytes short of its announced length");
        }
        return n;
    }

    /** Body bytes read so far. */
    final long sent() {
        return sent;
    }

    abstract int readSome(byte[] dst) throws IOException;

    /** {@return the size of chunk the next read wants: a full frame, unless the source knows it has less} */
    int chunkSize() {
        return CHUNK;
    }

    /** {@return whether the source queues its stream again itself when it has more, so a {@link #WAIT} needs no wakeup} */
    boolean wakesItself() {
        return false;
    }

    /** {@return the error code of the reset when a read fails} */
    ErrorCode failureCode() {
        return ErrorCode.INTERNAL_ERROR;
    }

    /** Releases the source: it will not be read again. */
    abstract void close();

    /** {@return when a source that waits wants to be read again without a wakeup (a heartbeat), or {@link Long#MAX_VALUE}} */
    long due() {
        return Long.MAX_VALUE;
    }

    /** The server drains: a source that ends when asked (an event stream) ends once what it queued is sent. */
    void drain() {
    }

    /** The source of a streamed response, as the handler left it; its fields are cleared. */
    static OutgoingData of(ResponseState res, Executor blockingExecutor, Runnable wakeup) {
        long length = res.streamLength;
        OutgoingData data;
        if (res.bodyFile != null) {
            data = new FileData(res.bodyFile, length);
        } else if (res.bodySource != null) {
            data = new SourceData(res.bodySource, length);
            res.bodySource.start(blockingExecutor, wakeup);
            res.bodySource = null;
        } else if (res.bodyWriter != null) {
            data = PipedData.start(res.bodyWriter, length, blockingExecutor, wakeup);
        } else if (blockingExecutor == null) {
            data = new StreamData(res.bodyStream, length);
        } else {
            InputStream source = res.bodyStream;
            data = PipedData.start(sink -> {
                try (source) {
                    source.transferTo(sink);
                }
            }, length, blockingExecutor, wakeup);
        }
        res.bodyFile = null;
        res.bodyWriter = null;
        res.bodyStream = null;
        return data;
    }

    private static final class FileData extends OutgoingData {
        private final FileChannel channel;
        private long position;
        private long left;

        FileData(FileChannel channel, long length) {
            super(length);
            this.channel = channel;
            this.left = length;
            try {
                this.position = channel.position();
            } catch (IOException e) {
                this.position = -1;
            }
        }

        @Override
        int readSome(byte[] dst) throws IOException {
            if (position < 0) {
                throw new IOException("the file's position cannot be read");
            }
            if (left == 0) {
                return END;
            }
            int n = (int) Math.min(dst.length, left >= 0 ? left : Long.MAX_VALUE);
            int read = channel.read(ByteBuffer.wrap(dst, 0, n), position);
            if (read < 0) {
                return END;
            }
            position += read;
            if (left > 0) {
                left -= read;
            }
            return read;
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

    private static final class StreamData extends OutgoingData {
        private final InputStream in;

        StreamData(InputStream in, long length) {
            super(length);
            this.in = in;
        }

        @Override
        int readSome(byte[] dst) throws IOException {
            int read = in.read(dst, 0, dst.length);
            return read < 0 ? END : read;
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

    private static final class PipedData extends OutgoingData {
        private final BodyPipe pipe;

        private PipedData(BodyPipe pipe, long length) {
            super(length);
            this.pipe = pipe;
        }

        /** Starts {@code writer} on {@code executor}, or on a new virtual thread when there is none. */
        static PipedData start(Response.BodyWriter writer, long length, Executor executor, Runnable wakeup) {
            return new PipedData(BodyPipe.start(writer, CHUNK, executor, wakeup), length);
        }

        @Override
        int readSome(byte[] dst) throws IOException {
            int n = pipe.take(dst, 0);
            return n > 0 ? n : n == BodyPipe.EMPTY ? WAIT : END;
        }

        @Override
        void close() {
            pipe.cancel();
        }
    }

    /** A body the connection reads as it has room, with no producer thread (an event stream). */
    private static final class SourceData extends OutgoingData {
        /** The least a read makes room for, so a heartbeat or a small event does not take a whole frame's chunk per stream. */
        private static final int MIN_CHUNK = 512;
        private final BodySource source;

        SourceData(BodySource source, long length) {
            super(length);
            this.source = source;
        }

        @Override
        int chunkSize() {
            try {
                return Math.clamp(source.available(System.nanoTime()), MIN_CHUNK, CHUNK);
            } catch (IOException e) {
                // the read that follows fails the same way
                return MIN_CHUNK;
            }
        }

        @Override
        int readSome(byte[] dst) throws IOException {
            int ready = source.available(System.nanoTime());
            if (ready < 0) {
                return END;
            }
            return ready == 0 ? WAIT : source.take(dst, 0, Math.min(ready, dst.length));
        }

        @Override
        long due() {
            return source.due();
        }

        @Override
        void drain() {
            source.drain();
        }

        @Override
        void close() {
            source.cancel();
        }
    }
}
