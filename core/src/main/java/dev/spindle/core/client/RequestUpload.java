// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.OutputBuffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * A request's streamed body on its way out: subscribed to once its head is encoded, asked for one
 * buffer at a time while the connection's output holds less than its high-water mark, and encoded
 * as it comes (as chunks, when its length is unknown). The subscriber's side runs on any thread and
 * wakes the connection; {@link #pump} runs on the connection's thread.
 */
final class RequestUpload implements Flow.Subscriber<ByteBuffer> {
    /** What {@link #pump} found. */
    enum Progress {
        /** More is to come: the connection is woken when it arrives. */
        MORE,
        /** The whole body is encoded (with the last chunk, if chunked). */
        DONE
    }

    /** More is asked of the source only while less than this waits to be written. */
    private static final int HIGH_WATER = 64 * 1024;
    private static final byte[] CRLF = "\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** The request whose body this is: its response timeout runs from the body's end. */
    private final ClientCall call;
    private final long length;
    /** HTTP/1.1 frames a body of unknown length as chunks; HTTP/2's DATA frames need none. */
    private final boolean chunked;
    private final Runnable wakeup;
    private final ConcurrentLinkedQueue<ByteBuffer> items = new ConcurrentLinkedQueue<>();
    /** Buffers asked for and not yet delivered. */
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile Flow.Subscription subscription;
    private volatile boolean completed;
    private volatile Throwable error;
    private long sent;

    private RequestUpload(ClientCall call, Runnable wakeup, boolean framed) {
        this.call = call;
        this.length = call.request.streamedBodyLength();
        this.chunked = framed && length < 0;
        this.wakeup = wakeup;
    }

    /**
     * Takes {@code call}'s body source and subscribes to it; a source that throws fails the body.
     *
     * @param wakeup runs (on the subscriber's thread) when the connection has something to pump
     */
    static RequestUpload start(ClientCall call, Runnable wakeup) {
        return start(call, wakeup, true);
    }

    /**
     * As {@link #start(ClientCall, Runnable)}, with the body's bytes encoded as they come, without
     * chunks whatever its length: for HTTP/2, whose DATA frames the connection cuts from them.
     *
     * @param framed whether a body of unknown length is encoded in chunks (HTTP/1.1)
     */
    static RequestUpload start(ClientCall call, Runnable wakeup, boolean framed) {
        RequestUpload upload = new RequestUpload(call, wakeup, framed);
        try {
            call.request.takeBodySource().subscribe(upload);
        } catch (RuntimeException e) {
            upload.onError(e);
        }
        return upload;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        if (subscription != null) {
            s.cancel();
            return;
        }
        subscription = Objects.requireNonNull(s, "subscription");
        wakeup.run();
    }

    @Override
    public void onNext(ByteBuffer item) {
        outstanding.decrementAndGet();
        items.add(Objects.requireNonNull(item, "item"));
        wakeup.run();
    }

    @Override
    public void onError(Throwable t) {
        error = t != null ? t : new NullPointerException("onError(null)");
        wakeup.run();
    }

    @Override
    public void onComplete() {
        completed = true;
        wakeup.run();
    }

    /**
     * Encodes what has arrived while {@code out} holds less than 64 KiB, asks the source for more
     * once all that arrived is encoded, and restarts the request's response timeout on progress
     * (a slow but steady body does not time out; its end starts the wait for the response).
     *
     * @return whether the body is complete
     * @throws ResponseException {@link dev.spindle.core.ClientException.Reason#REQUEST_BODY_FAILED}
     *         if the source failed or gave a length other than the one announced
     */
    Progress pump(OutputBuffer out, LongSupplier clock) {
        long before = sent;
        Progress progress = encodeArrived(out, HIGH_WATER);
        if (progress == Progress.DONE || sent != before) {
            call.encodedAt = clock.getAsLong();
        }
        return progress;
    }

    private Progress encodeArrived(OutputBuffer out, int highWater) {
        while (true) {
            for (ByteBuffer b; out.pending() < highWater && (b = items.poll()) != null; ) {
                encode(b, out);
            }
            Throwable failed = error;
            if (failed != null) {
                throw failure("the request body's source failed: " + failed);
            }
            if (items.isEmpty() && completed) {
                if (length >= 0 && sent != length) {
                    throw failure("the request body's source gave " + sent + " of the " + length + " bytes announced");
                }
                if (chunked) {
                    out.ensure(LAST_CHUNK.length);
                    out.put(LAST_CHUNK);
                }
                return Progress.DONE;
            }
            Flow.Subscription s = subscription;
            if (s == null || !items.isEmpty() || outstanding.get() > 0 || out.pending() >= highWater) {
                return Progress.MORE;
            }
            outstanding.incrementAndGet();
            // a source may deliver within the call: the loop encodes it at once
            s.request(1);
            if (items.isEmpty() && !completed && error == null) {
                return Progress.MORE;
            }
        }
    }

    private void encode(ByteBuffer b, OutputBuffer out) {
        int n = b.remaining();
        if (n == 0) {
            return;
        }
        if (length >= 0 && sent + n > length) {
            throw failure("the request body's source gave more than the " + length + " bytes announced");
        }
        if (chunked) {
            out.ensure(n + 8 + 2 * CRLF.length);
            int digits = 1;
            for (int v = n >>> 4; v != 0; v >>>= 4) {
                digits++;
            }
            for (int i = digits - 1; i >= 0; i--) {
                out.put(HEX[(n >>> (i * 4)) & 0xF]);
            }
            out.put(CRLF);
            out.put(b);
            out.put(CRLF);
        } else {
            out.ensure(n);
            out.put(b);
        }
        sent += n;
    }

    /** The request is abandoned (its connection failed): the source stops. */
    void cancel() {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    private ResponseException failure(String detail) {
        cancel();
        return new ResponseException(dev.spindle.core.ClientException.Reason.REQUEST_BODY_FAILED, detail);
    }
}
