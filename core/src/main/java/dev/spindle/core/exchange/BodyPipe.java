// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.Response;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A one-chunk hand-over from a producer thread to a connection: the producer writes into the chunk
 * and, once it is full (or flushed, or closed), waits until the connection has taken it. So a
 * streamed body holds one chunk here however large it is, and a slow client slows the producer.
 */
public final class BodyPipe extends OutputStream {
    public static final int EMPTY = 0;
    static final int ENDED = -1;

    /** Where a chunk starts: an event stream's chunks stay this small, a download's grow at once. */
    private static final int FIRST_CHUNK = 1024;

    /** Grows to {@code capacity} as writes need it, so an idle stream holds a small array. */
    private byte[] chunk;
    private final int capacity;
    private final Runnable wakeup;
    private int length;
    /** The chunk is handed over: the producer waits until the connection takes it. */
    private boolean ready;
    private boolean closed;
    private boolean cancelled;
    private IOException failure;

    public BodyPipe(int capacity, Runnable wakeup) {
        this.chunk = new byte[Math.min(capacity, FIRST_CHUNK)];
        this.capacity = capacity;
        this.wakeup = wakeup;
    }

    /**
     * A pipe whose producer, {@code writer}, starts on {@code executor}, or on a new virtual thread
     * when there is none; a refused start fails the pipe (the server is shutting down).
     *
     * @param writer what produces the body
     * @param capacity the chunk's size
     * @param executor where the producer runs, or null
     * @param wakeup called when a chunk is handed over or the producer ends
     * @return the pipe the connection takes chunks from
     */
    public static BodyPipe start(Response.BodyWriter writer, int capacity, java.util.concurrent.Executor executor, Runnable wakeup) {
        BodyPipe pipe = new BodyPipe(capacity, wakeup);
        Runnable task = () -> pipe.run(writer);
        try {
            if (executor != null) {
                executor.execute(task);
            } else {
                Thread.ofVirtual().name("spindle-body-writer").start(task);
            }
        } catch (java.util.concurrent.RejectedExecutionException e) {
            pipe.fail(new IOException("the server is shutting down"));
        }
        return pipe;
    }

    /** The producer thread's task. */
    public void run(Response.BodyWriter writer) {
        try {
            writer.writeTo(this);
            close();
        } catch (Throwable t) {
            fail(t instanceof IOException io ? io : new IOException("the body writer failed", t));
            if (!(t instanceof IOException) || !isCancelled()) {
                org.slf4j.LoggerFactory.getLogger(BodyPipe.class).warn("a streamed response body failed; ending its connection", t);
            }
        }
    }

    private synchronized boolean isCancelled() {
        return cancelled;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            boolean wake = false;
            synchronized (this) {
                awaitTaken();
                if (closed) {
                    throw new IOException("the body stream is closed");
                }
                if (chunk.length - length < len && chunk.length < capacity) {
                    chunk = java.util.Arrays.copyOf(chunk, Math.min(capacity, Math.max(2 * chunk.length, length + len)));
                }
                int n = Math.min(len, chunk.length - length);
                System.arraycopy(b, off, chunk, length, n);
                length += n;
                off += n;
                len -= n;
                if (length == capacity) {
                    ready = true;
                    wake = true;
                }
            }
            if (wake) {
                wakeup.run();
            }
        }
    }

    /** Hands over what was written so far, so the client gets it without waiting for a full chunk. */
    @Override
    public void flush() throws IOException {
        synchronized (this) {
            awaitTaken();
            if (length == 0) {
                return;
            }
            ready = true;
        }
        wakeup.run();
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (closed) {
                return;
            }
            awaitTaken();
            closed = true;
            ready = true;
        }
        wakeup.run();
    }

    /** The producer failed: the connection ends instead of finishing the body. */
    public void fail(IOException cause) {
        synchronized (this) {
            if (failure == null && !closed) {
                failure = cause;
            }
            closed = true;
            ready = true;
            notifyAll();
        }
        wakeup.run();
    }

    /** The connection ended: the producer's next write fails. */
    public synchronized void cancel() {
        cancelled = true;
        notifyAll();
    }

    private void awaitTaken() throws IOException {
        while (ready && !cancelled) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while the client was reading slowly");
            }
        }
        if (cancelled) {
            throw new IOException("the connection was closed before the body was sent");
        }
    }

    /** {@return the length of the chunk handed over and not yet taken, 0 when none is: what the next {@link #take} copies} */
    public synchronized int readyLength() {
        return ready ? length : 0;
    }

    /**
     * From the connection: copies a handed-over chunk to {@code dst[at...]} and returns its length,
     * or {@link #EMPTY} when none is ready, or {@link #ENDED} once everything was taken.
     *
     * @throws IOException when the producer failed
     */
    public synchronized int take(byte[] dst, int at) throws IOException {
        if (!ready) {
            return EMPTY;
        }
        if (failure != null) {
            throw failure;
        }
        int n = length;
        if (n == 0) {
            return closed ? ENDED : EMPTY;
        }
        System.arraycopy(chunk, 0, dst, at, n);
        length = 0;
        ready = closed;
        notifyAll();
        return n;
    }
}
