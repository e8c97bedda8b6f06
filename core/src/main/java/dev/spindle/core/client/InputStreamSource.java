// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A request body read from an {@link InputStream} as its connection asks for more: each demand is
 * met on a virtual thread (a stream's reads may block, and an event loop must not), in pieces of at
 * most {@value #PIECE} bytes. The stream is closed at its end, on a failure, or when the
 * subscription is cancelled.
 */
public final class InputStreamSource implements Flow.Publisher<ByteBuffer> {
    static final int PIECE = 16 * 1024;

    private final InputStream in;
    private final AtomicBoolean subscribed = new AtomicBoolean();

    /**
     * A source reading {@code in}.
     *
     * @param in the body's bytes; it is closed once read, or when the request is abandoned
     */
    public InputStreamSource(InputStream in) {
        this.in = java.util.Objects.requireNonNull(in, "in");
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        if (!subscribed.compareAndSet(false, true)) {
            subscriber.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {
                }

                @Override
                public void cancel() {
                }
            });
            subscriber.onError(new IllegalStateException("a stream can be read once: this body was taken already"));
            return;
        }
        subscriber.onSubscribe(new Reading(subscriber));
    }

    private final class Reading implements Flow.Subscription {
        private final Flow.Subscriber<? super ByteBuffer> subscriber;
        private final AtomicLong demand = new AtomicLong();
        private final AtomicBoolean running = new AtomicBoolean();
        private volatile boolean over;

        Reading(Flow.Subscriber<? super ByteBuffer> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            if (over) {
                return;
            }
            if (n <= 0) {
                end(new IllegalArgumentException("a subscriber asked for " + n + " buffers"));
                return;
            }
            demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
            if (running.compareAndSet(false, true)) {
                Thread.ofVirtual().name("spindle-client-body-source").start(this::read);
            }
        }

        /** Meets the demand, one piece at a time; one thread at a time reads. */
        private void read() {
            while (true) {
                while (!over && demand.get() > 0) {
                    byte[] piece = new byte[PIECE];
                    int n;
                    try {
                        n = in.readNBytes(piece, 0, PIECE);
                    } catch (IOException e) {
                        end(e);
                        return;
                    }
                    if (n > 0) {
                        demand.decrementAndGet();
                        subscriber.onNext(ByteBuffer.wrap(piece, 0, n));
                    }
                    if (n < PIECE) {
                        end(null);
                        return;
                    }
                }
                running.set(false);
                // demand that came as this thread was leaving finds no reader: take it on
                if (over || demand.get() == 0 || !running.compareAndSet(false, true)) {
                    return;
                }
            }
        }

        private void end(Throwable failure) {
            if (over) {
                return;
            }
            over = true;
            closeQuietly();
            if (failure == null) {
                subscriber.onComplete();
            } else {
                subscriber.onError(failure);
            }
        }

        @Override
        public void cancel() {
            over = true;
            closeQuietly();
        }

        private void closeQuietly() {
            try {
                in.close();
            } catch (IOException e) {
                // the body is over either way
            }
        }
    }
}
