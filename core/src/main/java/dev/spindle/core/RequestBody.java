// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.compress.InflatingInputStream;
import dev.spindle.core.compress.InflatingSubscriber;
import dev.spindle.core.exchange.BodyException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * The body of a request whose handler was dispatched before it arrived (blocking and asynchronous
 * handlers): the connection feeds it as bytes come in, and the handler consumes it one way, as an
 * {@link InputStream} ({@link #stream()}) or as chunks with demand ({@link #publisher()}). At most
 * {@value #WINDOW} bytes wait here; beyond that the connection stops reading the socket until the
 * consumer takes some, so a body of any size goes through in bounded memory.
 *
 * <p>The connection's side ({@code offer}, {@code end}, {@code fail}) runs on the connection's
 * thread; the consumer may be any thread. When the consumer frees room the connection was waiting
 * for, or asks for more, it calls the connection's wakeup.
 */
public final class RequestBody {
    static final int WINDOW = 64 * 1024;

    private final Runnable wakeup;
    private final long length;
    /**
     * The most bytes {@link #readAll()} and {@link Request#body()} collect: the route's buffered
     * limit. Set by the connection before the handler sees the body.
     */
    long collectLimit = Long.MAX_VALUE;

    private byte[] ring;
    private int head;
    private int size;
    private boolean ended;
    private IOException failure;
    /** The connection is waiting for room (it offered bytes that did not fit) or for demand. */
    private boolean connectionWaiting;
    /** Set once the consumer asked for bytes: time for {@code 100 Continue}. */
    private boolean demanded;
    private long received;
    private boolean abandoned;

    /** The content coding the consumer reads the body inflated from ({@code compress.RequestDecoding}), or 0. */
    private int decoding;
    private long decodeLimit;
    /** Why inflating failed (413, 400), once it has: the status the answer keeps. */
    private BodyException decodeFailure;

    private Flow.Subscriber<? super ByteBuffer> subscriber;
    private long demand;
    private boolean delivering;
    private boolean streamTaken;

    RequestBody(long length, Runnable wakeup) {
        this.length = length;
        this.wakeup = wakeup;
    }

    /**
     * The announced length, or -1 for a chunked body.
     *
     * @return the announced length in bytes ({@code Content-Length}), or -1 if unknown until the body ends
     */
    public long length() {
        return length;
    }

    /**
     * The body as a stream: {@code read} blocks until bytes arrive; -1 at the end.
     * A body that fails makes {@code read} throw the failure ({@link java.io.InterruptedIOException}
     * if the reading thread is interrupted). Closing the stream abandons the rest of the body.
     *
     * @return the stream; the body's only consumer
     * @throws IllegalStateException if the body is already being consumed (by a stream, a
     *         {@link #publisher()} subscriber or {@link #readAll()})
     */
    public synchronized InputStream stream() {
        if (subscriber != null || streamTaken) {
            throw new IllegalStateException("the body is already being consumed");
        }
        streamTaken = true;
        return decoding == 0 ? new Stream() : new InflatingInputStream(new Stream(), decoding, decodeLimit, this::decodingFailed);
    }

    /** From the connection, before the consumer has the body: it reads the body inflated, at most {@code limit} bytes. */
    void decode(int coding, long limit) {
        decoding = coding;
        decodeLimit = limit;
    }

    /** Inflating failed: the answer is this status, and the rest of the body is not wanted. */
    private void decodingFailed(BodyException cause) {
        synchronized (this) {
            if (decodeFailure == null) {
                decodeFailure = cause;
            }
            abandoned = true;
            size = 0;
        }
        wakeup.run();
    }

    synchronized boolean decodingFailed() {
        return decodeFailure != null;
    }

    /**
     * The body as chunks with demand: the subscriber gets {@code ByteBuffer}s (each its own copy) only
     * as far as it has requested, on the connection's thread (or, for bytes that had arrived already,
     * within its {@code request}), then {@code onComplete}, or
     * {@code onError} if the body does not arrive whole. Cancelling abandons the rest of the body.
     *
     * @return a publisher that accepts one subscriber; any other subscriber (or one after
     *         {@link #stream()}) gets {@code onError} with an {@link IllegalStateException}
     */
    public Flow.Publisher<ByteBuffer> publisher() {
        return this::subscribe;
    }

    /**
     * The whole body once it has arrived (at most the route's {@link RouteOptions#maxBodySize}, else
     * {@link ServerConfig#maxBodySize()}: a larger one fails with a 413 {@link HttpException}),
     * without blocking a thread. This consumes the body, like {@link #stream()} or {@link #publisher()}.
     *
     * @return a stage completed with the body's bytes (empty for an empty body), or exceptionally
     *         with the failure if the body does not arrive whole, is too large to collect or is
     *         already being consumed
     */
    public CompletionStage<byte[]> readAll() {
        CompletableFuture<byte[]> all = new CompletableFuture<>();
        if (length > collectLimit) {
            all.completeExceptionally(tooLargeToCollect());
            return all;
        }
        subscribe(new Flow.Subscriber<>() {
            private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            private Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                if (all.isDone()) {
                    return;
                }
                if (bytes.size() + (long) item.remaining() > collectLimit) {
                    subscription.cancel();
                    all.completeExceptionally(tooLargeToCollect());
                    return;
                }
                bytes.write(item.array(), item.arrayOffset() + item.position(), item.remaining());
            }

            @Override
            public void onError(Throwable t) {
                all.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                all.complete(bytes.toByteArray());
            }
        });
        return all;
    }

    /** A body read whole that would exceed {@link #collectLimit}. */
    HttpException tooLargeToCollect() {
        return new HttpException(413, "body larger than " + collectLimit + " bytes");
    }

    private void subscribe(Flow.Subscriber<? super ByteBuffer> s) {
        if (decoding != 0) {
            s = new InflatingSubscriber(s, decoding, decodeLimit, this::decodingFailed);
        }
        synchronized (this) {
            if (subscriber != null || streamTaken) {
                s.onSubscribe(new Flow.Subscription() {
                    @Override
                    public void request(long n) {
                    }

                    @Override
                    public void cancel() {
                    }
                });
                s.onError(new IllegalStateException("the body is already being consumed"));
                return;
            }
            subscriber = s;
        }
        s.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {
                if (n <= 0) {
                    fail(new BodyException(500, "subscriber requested " + n + " items"));
                    return;
                }
                boolean wake;
                synchronized (RequestBody.this) {
                    demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                    // the first demand may release a 100 Continue the connection held back
                    wake = !demanded || connectionWaiting || size > 0 || ended || failure != null;
                    demanded = true;
                    connectionWaiting = false;
                }
                // bytes already here (all of them, once the body has ended) need no connection to deliver them
                deliverPending();
                if (wake) {
                    wakeup.run();
                }
            }

            @Override
            public void cancel() {
                synchronized (RequestBody.this) {
                    abandoned = true;
                    demand = 0;
                }
                wakeup.run();
            }
        });
    }

    /** Whether the consumer has asked for bytes yet (the connection sends {@code 100 Continue} then). */
    synchronized boolean demanded() {
        return demanded;
    }

    /**
     * Whether nobody will read the rest, so the connection discards it: true, for good, once the
     * consumer closed the stream or cancelled, or the handler answered without reading the body.
     */
    synchronized boolean abandoned() {
        return abandoned;
    }

    synchronized boolean isComplete() {
        return ended && size == 0;
    }

    /** Body bytes offered and taken so far, including those dropped after the body was abandoned. */
    synchronized long received() {
        return received;
    }

    /** Stops accepting bytes for a consumer: the handler answered and the rest is discarded by the connection. */
    void abandon() {
        boolean notify;
        synchronized (this) {
            abandoned = true;
            notify = !ended && failure == null;
            if (notify) {
                failure = new BodyException(0, "the request was already answered");
            }
            notifyAll();
        }
        if (notify) {
            deliverPending();
        }
    }

    /**
     * From the connection: bytes of the body. Returns how many were taken, which is less than
     * {@code len} while the window is full or a subscriber has no demand; the connection then waits
     * for its wakeup. An abandoned body takes (and drops) everything.
     */
    int offer(MemorySegment src, byte[] array, long offset, int len) {
        int taken;
        synchronized (this) {
            if (abandoned) {
                received += len;
                return len;
            }
            if (ring == null) {
                ring = new byte[WINDOW];
            }
            taken = Math.min(len, WINDOW - size);
            int tail = (head + size) % WINDOW;
            int first = Math.min(taken, WINDOW - tail);
            copy(src, array, offset, ring, tail, first);
            copy(src, array, offset + first, ring, 0, taken - first);
            size += taken;
            received += taken;
            if (taken < len || size == WINDOW) {
                // a full window stops the reading too (hasRoom is false): the consumer must wake it
                connectionWaiting = true;
            }
            notifyAll();
        }
        deliverPending();
        synchronized (this) {
            if (subscriber != null && size > 0 && demand == 0) {
                connectionWaiting = true;
            }
        }
        return taken;
    }

    private static void copy(MemorySegment src, byte[] array, long offset, byte[] dst, int at, int n) {
        if (n <= 0) {
            return;
        }
        if (array != null) {
            System.arraycopy(array, (int) offset, dst, at, n);
        } else {
            MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, dst, at, n);
        }
    }

    /**
     * Whether more may be offered now (room in the window, and demand if a subscriber reads); always
     * true once the body is abandoned. Callable from any thread.
     */
    synchronized boolean hasRoom() {
        return abandoned || size < WINDOW && (subscriber == null || demand > 0 || size == 0);
    }

    /** From the connection: the body is complete. */
    void end() {
        synchronized (this) {
            ended = true;
            notifyAll();
        }
        deliverPending();
    }

    /**
     * From the connection: the body cannot complete (the peer went away, a limit was crossed, the
     * framing broke). The consumer gets {@code cause}: thrown from the stream's {@code read} once the
     * buffered bytes are read, or passed to {@code onError}. Ignored if the body already ended or failed.
     */
    void fail(IOException cause) {
        synchronized (this) {
            if (ended || failure != null) {
                return;
            }
            failure = cause;
            notifyAll();
        }
        deliverPending();
    }

    /** Why the body failed, with the status the connection answers, or null. */
    synchronized BodyException failure() {
        return decodeFailure != null ? decodeFailure : failure instanceof BodyException b ? b : null;
    }

    /** Hands buffered bytes to a subscriber as far as its demand goes; outside the lock, never re-entrantly. */
    private void deliverPending() {
        while (true) {
            Flow.Subscriber<? super ByteBuffer> s;
            ByteBuffer item = null;
            boolean complete = false;
            IOException error = null;
            synchronized (this) {
                s = subscriber;
                if (s == null || s == NONE || delivering) {
                    return;
                }
                if (size > 0 && demand > 0) {
                    byte[] copy = new byte[size];
                    int first = Math.min(size, WINDOW - head);
                    System.arraycopy(ring, head, copy, 0, first);
                    System.arraycopy(ring, 0, copy, first, size - first);
                    head = 0;
                    size = 0;
                    if (demand != Long.MAX_VALUE) {
                        demand--;
                    }
                    item = ByteBuffer.wrap(copy);
                } else if (size == 0 && ended && !abandoned) {
                    complete = true;
                    subscriber = NONE;
                } else if (failure != null && !abandoned) {
                    error = failure;
                    subscriber = NONE;
                } else {
                    return;
                }
                delivering = true;
            }
            try {
                if (item != null) {
                    s.onNext(item);
                } else if (complete) {
                    s.onComplete();
                } else {
                    s.onError(error);
                }
            } finally {
                synchronized (this) {
                    delivering = false;
                }
            }
            if (item != null) {
                boolean wake;
                synchronized (this) {
                    wake = connectionWaiting;
                    connectionWaiting = false;
                }
                if (wake) {
                    wakeup.run();
                }
            }
        }
    }

    private static final Flow.Subscriber<ByteBuffer> NONE = new Flow.Subscriber<>() {
        @Override
        public void onSubscribe(Flow.Subscription s) {
        }

        @Override
        public void onNext(ByteBuffer item) {
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onComplete() {
        }
    };

    /** After this many bytes read without waiting, a virtual reader lets other virtual threads run. */
    private static final int YIELD_BYTES = 1 << 20;

    private final class Stream extends InputStream {
        /** Bytes read since a read last had to wait; its reader is one thread at a time. */
        private long readSinceWait;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            boolean wake;
            boolean waited = false;
            int n;
            synchronized (RequestBody.this) {
                demanded = true;
                while (size == 0 && !ended && failure == null) {
                    waited = true;
                    if (connectionWaiting) {
                        connectionWaiting = false;
                        wakeup.run();
                    } else if (!demandSignalled) {
                        // the connection may hold back 100 Continue until someone reads
                        demandSignalled = true;
                        wakeup.run();
                    }
                    try {
                        RequestBody.this.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new java.io.InterruptedIOException("interrupted while reading the request body");
                    }
                }
                if (size == 0) {
                    if (failure != null) {
                        throw failure;
                    }
                    return -1;
                }
                n = Math.min(len, size);
                int first = Math.min(n, WINDOW - head);
                System.arraycopy(ring, head, b, off, first);
                System.arraycopy(ring, 0, b, off + first, n - first);
                head = (head + n) % WINDOW;
                size -= n;
                wake = connectionWaiting;
                connectionWaiting = false;
            }
            if (wake) {
                wakeup.run();
            }
            readSinceWait = waited ? n : readSinceWait + n;
            if (readSinceWait >= YIELD_BYTES) {
                readSinceWait = 0;
                // a body that arrives faster than it is read never makes the read wait, so a virtual
                // thread reading it would hold its carrier to the end: VirtualThreadServer's
                // connections need one too
                if (Thread.currentThread().isVirtual()) {
                    Thread.yield();
                }
            }
            return n;
        }

        @Override
        public int available() {
            synchronized (RequestBody.this) {
                return size;
            }
        }

        @Override
        public void close() {
            synchronized (RequestBody.this) {
                abandoned = true;
                size = 0;
            }
            wakeup.run();
        }
    }

    private boolean demandSignalled;
}
