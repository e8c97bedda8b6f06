// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import dev.spindle.core.exchange.BodyException;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * A streamed request body as chunks with demand, inflated: stands between the body's publisher of
 * coded chunks and the handler's subscriber. One coded chunk is taken at a time and inflated a
 * piece of at most {@value #PIECE} bytes per item the subscriber asked for, so however far a chunk
 * inflates, one piece is held. A failure ({@link Inflation}'s 413 or 400) cancels the coded body,
 * goes to {@code onError} and is told to {@code failed}, so the connection answers it.
 */
public final class InflatingSubscriber implements Flow.Subscriber<ByteBuffer>, Flow.Subscription {
    private static final int PIECE = 64 * 1024;

    private final Flow.Subscriber<? super ByteBuffer> downstream;
    private final Inflation inflation;
    private final Consumer<BodyException> failed;
    private Flow.Subscription upstream;
    private final byte[] piece = new byte[PIECE];
    private long demand;
    /** A coded chunk is being inflated (given to the inflation, not yet used up). */
    private boolean holding;
    private boolean askedUpstream;
    private boolean upstreamDone;
    private Throwable upstreamError;
    private boolean terminated;
    /** Serialises {@link #drain}: callers that find it busy leave their work to the one inside. */
    private boolean draining;
    private boolean again;

    public InflatingSubscriber(Flow.Subscriber<? super ByteBuffer> downstream, int coding, long limit, Consumer<BodyException> failed) {
        this.downstream = downstream;
        this.inflation = new Inflation(coding, limit);
        this.failed = failed;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        upstream = s;
        downstream.onSubscribe(this);
    }

    @Override
    public void onNext(ByteBuffer item) {
        synchronized (this) {
            askedUpstream = false;
            holding = true;
            inflation.setInput(item.array(), item.arrayOffset() + item.position(), item.remaining());
        }
        drain();
    }

    @Override
    public void onError(Throwable t) {
        synchronized (this) {
            upstreamError = t;
        }
        drain();
    }

    @Override
    public void onComplete() {
        synchronized (this) {
            upstreamDone = true;
        }
        drain();
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            upstream.request(n);
            return;
        }
        synchronized (this) {
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        }
        drain();
    }

    @Override
    public void cancel() {
        synchronized (this) {
            terminated = true;
            inflation.end();
        }
        upstream.cancel();
    }

    private void drain() {
        synchronized (this) {
            if (draining) {
                again = true;
                return;
            }
            draining = true;
        }
        while (true) {
            synchronized (this) {
                again = false;
            }
            boolean open = step();
            synchronized (this) {
                if (!open || !again) {
                    draining = false;
                    return;
                }
            }
        }
    }

    /** Delivers what demand allows; true if it should look again. */
    private boolean step() {
        while (true) {
            ByteBuffer item = null;
            boolean complete = false;
            Throwable error = null;
            boolean ask = false;
            synchronized (this) {
                if (terminated) {
                    return false;
                }
                if (holding && demand > 0) {
                    int n;
                    try {
                        n = inflation.inflate(piece, 0, piece.length);
                    } catch (BodyException e) {
                        terminated = true;
                        inflation.end();
                        error = e;
                        n = 0;
                    }
                    if (n > 0) {
                        demand--;
                        item = ByteBuffer.wrap(java.util.Arrays.copyOf(piece, n));
                    } else if (error == null) {
                        holding = false;
                    }
                }
                if (item == null && error == null) {
                    if (holding) {
                        // a chunk still owes output: it waits for demand
                        return true;
                    }
                    if (upstreamError != null) {
                        terminated = true;
                        inflation.end();
                        error = upstreamError;
                    } else if (upstreamDone) {
                        terminated = true;
                        try {
                            inflation.finish();
                            complete = true;
                        } catch (BodyException e) {
                            error = e;
                        }
                        inflation.end();
                    } else if (demand > 0 && !askedUpstream) {
                        askedUpstream = true;
                        ask = true;
                    } else {
                        return true;
                    }
                }
            }
            if (item != null) {
                downstream.onNext(item);
            } else if (error != null) {
                if (error instanceof BodyException b && b.status > 0 && upstreamError != error) {
                    upstream.cancel();
                    failed.accept(b);
                }
                downstream.onError(error);
                return false;
            } else if (complete) {
                downstream.onComplete();
                return false;
            } else if (ask) {
                upstream.request(1);
            }
        }
    }
}
