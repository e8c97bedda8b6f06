package dev.spindle.netty;

import dev.spindle.core.Response;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streamed response body (an {@link InputStream} or a {@link Response.BodyWriter}) produced on a
 * thread of its own and handed to {@link ChunkedWriteHandler} one {@value #CHUNK}-byte chunk at a
 * time. The producer fills one chunk while at most one more waits here to be taken, and the
 * handler takes chunks only while the channel is writable, so a body of any size holds at most the
 * write high-water mark plus two chunks. {@link #readChunk} returns null while the producer has
 * nothing ready, and a handed-over chunk calls {@link ChunkedWriteHandler#resumeTransfer()}.
 *
 * <p>The announced length is enforced: a producer that writes more fails at once, one that ends
 * short fails at the end; either way the write fails and the connection closes, since the status
 * has been sent.
 */
final class ProducedBody implements ChunkedInput<ByteBuf> {
    static final int CHUNK = 32 * 1024;
    private static final Logger log = LoggerFactory.getLogger(ProducedBody.class);

    private final long length;
    private final ByteBufAllocator alloc;
    private final ChunkedWriteHandler writer;
    private final Sink sink = new Sink();

    private ByteBuf ready;
    private boolean ended;
    private boolean cancelled;
    private IOException failure;
    private long handedOver;
    private long taken;
    /** When {@link #readChunk} last found nothing ready (System.nanoTime()), or 0 while chunks flow. */
    private long starvedSince;

    private ProducedBody(long length, ChannelHandlerContext ctx, ChunkedWriteHandler writer) {
        this.length = length;
        this.alloc = ctx.alloc();
        this.writer = writer;
    }

    /** Starts {@code in} (read to its end, then closed) on {@code executor}. */
    static ProducedBody of(InputStream in, long length, ChannelHandlerContext ctx, ChunkedWriteHandler writer, Executor executor) {
        return of(out -> {
            try (in) {
                in.transferTo(out);
            }
        }, length, ctx, writer, executor);
    }

    /** Starts {@code producer} on {@code executor}. */
    static ProducedBody of(Response.BodyWriter producer, long length, ChannelHandlerContext ctx, ChunkedWriteHandler writer,
            Executor executor) {
        ProducedBody body = new ProducedBody(length, ctx, writer);
        try {
            executor.execute(() -> body.produce(producer));
        } catch (RejectedExecutionException e) {
            body.fail(new IOException("the server is shutting down"));
        }
        return body;
    }

    private void produce(Response.BodyWriter producer) {
        try {
            producer.writeTo(sink);
            sink.close();
        } catch (Throwable t) {
            sink.discard();
            boolean quiet;
            synchronized (this) {
                quiet = cancelled;
            }
            if (!quiet) {
                log.warn("a streamed response body failed; ending its connection", t);
            }
            fail(t instanceof IOException io ? io : new IOException("the body writer failed", t));
        }
    }

    private void fail(IOException cause) {
        synchronized (this) {
            if (failure == null) {
                failure = cause;
            }
            notifyAll();
        }
        writer.resumeTransfer();
    }

    /**
     * How long the consumer has found nothing to send, in nanoseconds at {@code now}, or 0 while
     * the producer keeps up (or is done). The handler timeout applies to it.
     */
    synchronized long starvedFor(long now) {
        return starvedSince == 0 || ended || failure != null ? 0 : now - starvedSince;
    }

    @Override
    public synchronized boolean isEndOfInput() {
        return ended && ready == null && failure == null && (length < 0 || handedOver == length);
    }

    @Override
    @Deprecated
    public ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
        return readChunk(ctx.alloc());
    }

    @Override
    public synchronized ByteBuf readChunk(ByteBufAllocator allocator) throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (ready != null) {
            ByteBuf chunk = ready;
            ready = null;
            taken += chunk.readableBytes();
            starvedSince = 0;
            notifyAll();
            return chunk;
        }
        if (ended) {
            if (length >= 0 && handedOver < length) {
                throw new IOException("the body ended " + (length - handedOver) + " bytes short of its announced length");
            }
            return null;
        }
        if (starvedSince == 0) {
            starvedSince = System.nanoTime();
        }
        return null;
    }

    @Override
    public void close() {
        ByteBuf dropped;
        synchronized (this) {
            cancelled = true;
            dropped = ready;
            ready = null;
            notifyAll();
        }
        if (dropped != null) {
            dropped.release();
        }
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public synchronized long progress() {
        return taken;
    }

    /** What the producer writes to: fills a chunk, hands it over when full, flushed or closed. */
    private final class Sink extends OutputStream {
        private ByteBuf filling;
        private long written;
        private boolean closed;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (closed) {
                throw new IOException("the body stream is closed");
            }
            if (length >= 0 && written + len > length) {
                throw new IOException("the body is longer than its announced length of " + length + " bytes");
            }
            while (len > 0) {
                if (filling == null) {
                    filling = alloc.ioBuffer(CHUNK, CHUNK);
                }
                int n = Math.min(len, filling.writableBytes());
                filling.writeBytes(b, off, n);
                off += n;
                len -= n;
                written += n;
                if (!filling.isWritable()) {
                    handOver();
                }
            }
        }

        @Override
        public void flush() throws IOException {
            if (filling != null && filling.isReadable()) {
                handOver();
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            flush();
            closed = true;
            synchronized (ProducedBody.this) {
                ended = true;
            }
            writer.resumeTransfer();
        }

        /** Waits until the previous chunk was taken, then hands this one over. */
        private void handOver() throws IOException {
            ByteBuf chunk = filling;
            filling = null;
            synchronized (ProducedBody.this) {
                while (ready != null && !cancelled) {
                    try {
                        ProducedBody.this.wait();
                    } catch (InterruptedException e) {
                        chunk.release();
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while sending the response body");
                    }
                }
                if (cancelled) {
                    chunk.release();
                    throw new IOException("the connection was closed");
                }
                ready = chunk;
                handedOver += chunk.readableBytes();
            }
            writer.resumeTransfer();
        }

        /** Releases the chunk being filled after a failure. */
        void discard() {
            if (filling != null) {
                filling.release();
                filling = null;
            }
        }
    }
}
