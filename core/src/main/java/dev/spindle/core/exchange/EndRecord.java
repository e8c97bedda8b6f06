// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.ExchangeListener;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exchange's end, taken from its request when its answer is encoded (the request's state is
 * reused by then, or soon after) and completed when the answer's last byte is written or the
 * exchange ends without it. A protocol makes one only when someone listens: the router's
 * {@link ExchangeListener}s, or a callback of {@code Request.onEnd}.
 */
public final class EndRecord implements ExchangeEnd {
    private static final Logger log = LoggerFactory.getLogger(EndRecord.class);

    private final ExchangeListener[] listeners;
    private final String method;
    private final String target;
    private final String route;
    private final String protocol;
    private final long startNanos;
    /** The callbacks, taken when the record was made from a request state that is reused; else null. */
    private final Object callbacks;
    /** The request state whose callbacks are taken at the end (it outlives the exchange), or null. */
    private final RequestState source;
    public int status;
    public long responseBytes;
    public long requestBytes;
    public Throwable failure;
    private long durationNanos;
    private Outcome outcome;
    /** HTTP/1.1: the connection's output offset its answer's last byte lies at; -1 while a streamed body is still being sent. */
    public long endOffset = -1;
    /** HTTP/1.1: the next answer queued behind this one. */
    public EndRecord next;

    private EndRecord(ExchangeListener[] listeners, String method, String target, String route, String protocol, long startNanos,
            Object callbacks, RequestState source) {
        this.source = source;
        this.listeners = listeners;
        this.method = method;
        this.target = target;
        this.route = route;
        this.protocol = protocol;
        this.startNanos = startNanos;
        this.callbacks = callbacks;
    }

    /**
     * The record of {@code req}'s exchange, answered with {@code status}; null when nobody listens.
     *
     * @param headRead whether the request's head was parsed (else only that it was refused is known)
     */
    public static EndRecord of(ExchangeListener[] listeners, RequestState req, boolean headRead, int status, Throwable failure) {
        return of(listeners, req, headRead, status, failure, req.detached);
    }

    /**
     * As {@link #of(ExchangeListener[], RequestState, boolean, int, Throwable)}.
     *
     * @param outlives whether {@code req} is not reused before its exchange ends (a detached copy,
     *        an HTTP/2 stream's): its callbacks are then taken at the end, so a handler on another
     *        thread may still register one, and one registered after the end is called at once
     */
    public static EndRecord of(ExchangeListener[] listeners, RequestState req, boolean headRead, int status, Throwable failure,
            boolean outlives) {
        headRead &= req.method != null && req.data != null;
        Object callbacks = headRead && !outlives ? req.onEnd : null;
        if (listeners == null && callbacks == null && !(headRead && outlives)) {
            return null;
        }
        String protocol = protocol(req.version);
        EndRecord r;
        if (headRead) {
            r = new EndRecord(listeners, req.api.methodName(), req.api.target(), req.api.routePattern(), protocol,
                    req.startNanos != 0 ? req.startNanos : System.nanoTime(), callbacks, outlives ? req : null);
            r.requestBytes = req.streamed != null ? ApiAccess.get().received(req.streamed) : req.bodyEnd - req.bodyStart;
        } else {
            r = new EndRecord(listeners, "", "", null, protocol, System.nanoTime(), null, null);
            started(listeners, "", protocol);
        }
        r.status = status;
        // a router with filters or mappers answers a handler's exception inside its chain, which keeps it on the request
        r.failure = failure != null || !headRead ? failure : req.failure;
        return r;
    }

    /** An exchange refused unread (an HTTP/2 stream over the limit): started and ended at once. */
    public static void refused(ExchangeListener[] listeners, String protocol) {
        started(listeners, "", protocol);
        EndRecord r = new EndRecord(listeners, "", "", null, protocol, System.nanoTime(), null, null);
        r.end(Outcome.REFUSED);
    }

    /** Tells the listeners that an exchange began (its request is about to be routed). */
    public static void started(ExchangeListener[] listeners, RequestState req) {
        if (listeners != null) {
            req.startNanos = System.nanoTime();
            started(listeners, req.api.methodName(), protocol(req.version));
        }
    }

    private static void started(ExchangeListener[] listeners, String method, String protocol) {
        if (listeners == null) {
            return;
        }
        for (ExchangeListener l : listeners) {
            try {
                l.exchangeStarted(method, protocol);
            } catch (RuntimeException e) {
                log.warn("exchange listener {} failed", l, e);
            }
        }
    }

    private static String protocol(int version) {
        return version == RequestState.HTTP_2 ? "HTTP/2" : version == RequestState.HTTP_1_0 ? "HTTP/1.0" : "HTTP/1.1";
    }

    /** The exchange ended so: every listener and callback hears of it, once. */
    @SuppressWarnings("unchecked")
    public void end(Outcome how) {
        if (outcome != null) {
            return;
        }
        outcome = how;
        durationNanos = System.nanoTime() - startNanos;
        if (listeners != null) {
            for (ExchangeListener l : listeners) {
                try {
                    l.exchangeEnded(this);
                } catch (RuntimeException e) {
                    log.warn("exchange listener {} failed", l, e);
                }
            }
        }
        Object registered = callbacks;
        if (source != null) {
            synchronized (source) {
                source.endedWith = this;
                registered = source.onEnd;
                if (registered instanceof List<?> list) {
                    registered = List.copyOf(list);
                }
            }
        }
        if (registered instanceof List<?> list) {
            for (Object c : list) {
                call((Consumer<ExchangeEnd>) c);
            }
        } else if (registered != null) {
            call((Consumer<ExchangeEnd>) registered);
        }
    }

    /** Calls a callback registered after the end. */
    public void lateCallback(Consumer<? super ExchangeEnd> callback) {
        try {
            callback.accept(this);
        } catch (RuntimeException e) {
            log.warn("exchange end callback {} failed", callback, e);
        }
    }

    private void call(Consumer<? super ExchangeEnd> callback) {
        try {
            callback.accept(this);
        } catch (RuntimeException e) {
            log.warn("exchange end callback {} failed", callback, e);
        }
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String target() {
        return target;
    }

    @Override
    public String route() {
        return route;
    }

    @Override
    public String protocol() {
        return protocol;
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public long responseBodyBytes() {
        return responseBytes;
    }

    @Override
    public long requestBodyBytes() {
        return requestBytes;
    }

    @Override
    public long durationNanos() {
        return durationNanos;
    }

    @Override
    public Outcome outcome() {
        return outcome;
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    @Override
    public String toString() {
        return method + " " + target + " " + status + " " + outcome;
    }
}
