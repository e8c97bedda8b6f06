// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.ExchangeListener;
import dev.spindle.core.HttpException;
import dev.spindle.core.RequestBody;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.compress.RequestDecoding;
import dev.spindle.core.compress.ResponseCoding;
import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.BodyException;
import dev.spindle.core.exchange.EndRecord;
import dev.spindle.core.exchange.Exchange;
import dev.spindle.core.exchange.HandlerRunner;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.ResponseState;
import dev.spindle.core.exchange.Route;
import dev.spindle.core.spi.BodyBudget;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request side of an HTTP/2 connection: a stream's request goes to the router and its handler
 * ({@link HandlerRunner}, as for HTTP/1.1) once it is whole, or at once when the route streams
 * its body; DATA is buffered (charged to the body budget) or fed to the streamed body, and given
 * back to the windows only as it is consumed. It watches the handlers in flight, their timeouts
 * and the requests that stopped arriving, and keeps the streams a reset left with a running
 * handler until it ends.
 */
final class StreamDispatcher {
    private static final Logger log = LoggerFactory.getLogger(StreamDispatcher.class);
    private static final ApiAccess API = ApiAccess.get();

    private final Http2Connection connection;
    private final ServerConfig config;
    private final Router router;
    /** Who hears of every exchange's end, or null. */
    private final ExchangeListener[] listeners;
    private final Http2Limits limits;
    private final HandlerRunner handlers;
    private final BodyBudget budget;
    private final Runnable wakeup;
    private final StreamMap streams;
    private final StreamWriter writer;
    private final Http2Guards guards;
    private final WebSocketStreams sockets;
    /** Streams whose blocking or asynchronous handler is in flight. */
    private final ArrayList<Stream> handling = new ArrayList<>();
    /** Streams holding DATA their body's consumer has not taken yet. */
    private final ArrayList<Stream> backlogged = new ArrayList<>();
    /** Streams closed while their handler still ran, kept until it finishes; bounded by {@link Http2Limits#maxAbandonedHandlers}. */
    private final ArrayList<Stream> abandoned = new ArrayList<>();

    StreamDispatcher(Http2Connection connection, ServerConfig config, Router router, Http2Limits limits, HandlerRunner handlers,
            BodyBudget budget, Runnable wakeup, StreamMap streams, StreamWriter writer, Http2Guards guards) {
        this.connection = connection;
        this.config = config;
        this.router = router;
        this.listeners = API.listeners(router);
        this.limits = limits;
        this.handlers = handlers;
        this.budget = budget;
        this.wakeup = wakeup;
        this.streams = streams;
        this.writer = writer;
        this.guards = guards;
        this.sockets = new WebSocketStreams(connection, config, writer, guards, wakeup);
    }

    /**
     * A request's header block ended: {@code complete} is false when the header list was over its
     * size, {@code tooManyFields} when it had more fields than allowed, and {@code malformed} says
     * what is wrong with it, or is null.
     */
    void request(Stream s, boolean complete, boolean tooManyFields, String malformed, boolean endStream) throws Http2Exception {
        s.headersDone = true;
        if (endStream) {
            s.state = Stream.State.HALF_CLOSED_REMOTE;
        }
        // the fields past a limit were never kept, so what is missing is not the client's fault
        if (!complete) {
            answerError(s, 431, "the header fields are larger than " + limits.maxHeaderListSize() + " bytes");
            return;
        }
        if (tooManyFields) {
            answerError(s, 431, "more than " + config.maxHeaderCount() + " header fields");
            return;
        }
        if (malformed != null) {
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "malformed request: " + malformed);
        }
        if (s.unsupportedExpectation) {
            answerError(s, 417, "unsupported expectation");
            return;
        }
        if (s.request.protocol != null && !endStream) {
            // an extended CONNECT (RFC 8441) is answered before its stream ends: the stream is what it opens
            dispatch(s);
            return;
        }
        if (endStream) {
            if (s.contentLength > 0) {
                throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "content-length without DATA");
            }
            dispatch(s);
            return;
        }
        Route route;
        try {
            route = API.route(router, s.request);
        } catch (HttpException e) {
            if (s.request.expectContinue) {
                // the client waits for 100 before it sends the body: the final answer now spares it the wait
                s.response.reset();
                respond(s, s.response, e);
            }
            // else answered when the request is complete (404, 405); its body is dropped meanwhile
            return;
        }
        s.request.route = route;
        long limit = route.bodyLimit(config, route.streamsBody && handlers.canStream(route));
        if (s.contentLength > limit) {
            answerError(s, 413, "the request body is larger than " + limit + " bytes");
            return;
        }
        HttpException unsupported = RequestDecoding.refusal(s.request);
        if (unsupported != null) {
            answerError(s, unsupported);
            return;
        }
        if (s.request.expectContinue) {
            // RFC 9113 8.5: the interim response as a HEADERS frame of its own
            writer.interim(s, 100);
        }
        if (route.streamsBody && handlers.canStream(route)) {
            startStreamed(s, route, limit);
        }
    }

    /** A trailer block ended the request. */
    void trailers(Stream s, String malformed, boolean endStream) throws Http2Exception {
        if (malformed != null) {
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "malformed trailers: " + malformed);
        }
        if (!endStream) {
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "trailers without END_STREAM");
        }
        if (s.contentLength >= 0 && s.received != s.contentLength) {
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "DATA does not match content-length");
        }
        endOfRequest(s);
    }

    /** DATA within the windows on an open stream: buffered, streamed to the handler, or dropped after an early answer. */
    void data(Stream s, ByteBuffer data, boolean endStream) throws Http2Exception {
        if (s.webSocket != null) {
            sockets.data(s, data, endStream);
            if (endStream) {
                s.state = s.state == Stream.State.HALF_CLOSED_LOCAL ? Stream.State.CLOSED : Stream.State.HALF_CLOSED_REMOTE;
                if (s.state == Stream.State.CLOSED) {
                    connection.close(s);
                }
            }
            return;
        }
        int n = data.remaining();
        s.received += n;
        if (s.contentLength >= 0 && (s.received > s.contentLength || endStream && s.received != s.contentLength)) {
            guards.consumed(s, n);
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "DATA does not match content-length");
        }
        if (s.streamed != null) {
            if (s.received > s.bodyLimit || s.bodyFailed) {
                // the handler learns it from its body and answers (413); the rest is dropped
                guards.consumed(s, n);
                if (!s.bodyFailed) {
                    s.bodyFailed = true;
                    API.fail(s.streamed, new BodyException(413, "the request body is larger than " + s.bodyLimit + " bytes"));
                }
            } else {
                feed(s, data);
            }
        } else if (!s.answered && s.exchange == null) {
            buffer(s, data);
        } else {
            // answered already (an early error): the rest is dropped
            guards.consumed(s, n);
        }
        if (endStream) {
            endOfRequest(s);
        }
    }

    /** A buffered body grows by what arrived; it is given back to the peer's windows at once, within the route's limit. */
    private void buffer(Stream s, ByteBuffer data) throws Http2Exception {
        int n = data.remaining();
        Route route = s.request.route;
        long limit = route != null ? route.bodyLimit(config, false) : config.maxBodySize();
        if (s.received > limit) {
            guards.consumed(s, n);
            answerError(s, 413, "the request body is larger than " + limit + " bytes");
            return;
        }
        if (budget != null && n > 0) {
            if (!budget.tryReserve(n)) {
                guards.consumed(s, n);
                answerError(s, 503, "too many request bodies in flight; retry");
                return;
            }
            s.budgeted += n;
        }
        s.appendBody(data);
        guards.consumed(s, n);
    }

    private void feed(Stream s, ByteBuffer data) {
        int n = data.remaining();
        if (s.pendingBytes() == 0 && n > 0) {
            MemorySegment src = data.hasArray() ? MemorySegment.ofArray(data.array()) : MemorySegment.ofBuffer(data);
            long offset = data.hasArray() ? data.arrayOffset() + data.position() : 0;
            int taken = API.offer(s.streamed, src, data.hasArray() ? data.array() : null, offset, n);
            data.position(data.position() + taken);
            guards.consumed(s, taken);
        }
        if (data.hasRemaining()) {
            if (s.pendingBytes() == 0) {
                backlogged.add(s);
            }
            s.keep(data);
        }
    }

    /** Moves DATA the streamed bodies' consumers have room for now, and gives it back to the windows. */
    private void feedStreamedBodies() {
        for (int i = backlogged.size() - 1; i >= 0; i--) {
            Stream s = backlogged.get(i);
            if (s.streamed == null || s.state == Stream.State.CLOSED) {
                backlogged.remove(i);
            } else if (API.hasRoom(s.streamed)) {
                int taken = API.offer(s.streamed, MemorySegment.ofArray(s.pending), s.pending, s.pendingStart, s.pendingBytes());
                s.pendingStart += taken;
                guards.consumed(s, taken);
                if (s.pendingBytes() == 0) {
                    backlogged.remove(i);
                    if (s.remoteClosed()) {
                        API.end(s.streamed);
                    }
                }
            }
        }
    }

    private void endOfRequest(Stream s) {
        s.state = s.state == Stream.State.HALF_CLOSED_LOCAL ? Stream.State.CLOSED : Stream.State.HALF_CLOSED_REMOTE;
        if (s.streamed != null) {
            if (s.pendingBytes() == 0 && !s.bodyFailed) {
                API.end(s.streamed);
            }
        } else if (!s.answered && s.exchange == null) {
            dispatch(s);
        }
        if (s.state == Stream.State.CLOSED) {
            connection.close(s);
        }
    }

    /** Runs the request's handler: inline ones answer at once, deferred ones when they finish. */
    void dispatch(Stream s) {
        started(s);
        RequestState req = s.request;
        Route route = req.route;
        if (route == null) {
            try {
                route = API.route(router, req);
            } catch (HttpException e) {
                s.response.reset();
                respond(s, s.response, e);
                return;
            }
        }
        int coding = RequestDecoding.decoding(req);
        if (coding > RequestDecoding.NONE && req.bodyEnd > req.bodyStart) {
            HttpException refused = RequestDecoding.inflateWhole(req, coding, route.bodyLimit(config, false));
            if (refused != null) {
                answerError(s, refused);
                return;
            }
        }
        if (handlers.deferred(route)) {
            if (route.async != null) {
                req.mayBlock = false;
            }
            begin(s, route, new Exchange(req, true, null));
            return;
        }
        s.response.reset();
        s.response.jsonCodec = route.json;
        respond(s, s.response, handlers.runInline(route, req, s.response));
    }

    private void startStreamed(Stream s, Route route, long limit) {
        started(s);
        s.bodyLimit = limit;
        int coding = RequestDecoding.decoding(s.request);
        RequestBody body = API.newBody(coding != RequestDecoding.NONE ? -1 : s.contentLength, wakeup);
        API.collectLimit(body, route.bodyLimit(config, false));
        if (coding != RequestDecoding.NONE) {
            API.decode(body, coding, limit);
            RequestDecoding.hideCodingFields(s.request);
        }
        s.request.streamed = body;
        s.request.mayBlock = route.blocking;
        s.streamed = body;
        begin(s, route, new Exchange(s.request, true, body));
    }

    private void begin(Stream s, Route route, Exchange ex) {
        s.exchange = ex;
        s.handlerStarted = System.nanoTime();
        handlers.start(route, ex);
        if (ex.done && handlers.runsHere(route)) {
            s.exchange = null;
            completeExchange(s, ex);
        } else {
            handling.add(s);
        }
    }

    /** Answers the streams whose handler finished. */
    private void completeDone() {
        for (int i = 0; i < handling.size(); ) {
            Stream s = handling.get(i);
            if (s.exchange.done) {
                handling.remove(i);
                Exchange ex = s.exchange;
                s.exchange = null;
                completeExchange(s, ex);
            } else {
                i++;
            }
        }
    }

    private void completeExchange(Stream s, Exchange ex) {
        if (s.streamed != null && !s.remoteClosed()) {
            // answered before its body arrived: the rest is not wanted
            API.abandon(s.streamed);
        }
        respond(s, ex.response, ex.failure);
    }

    /** What the wakeup asks for: answers finished handlers, feeds streamed bodies, frees abandoned streams. */
    void resume() {
        completeDone();
        feedStreamedBodies();
        releaseAbandoned();
        sockets.resume();
    }

    /** What {@link #resume} does, and the handler and request timeouts. */
    void tick(long now) {
        completeDone();
        feedStreamedBodies();
        writer.requeueProducing();
        long handlerTimeout = config.handlerTimeout().toNanos();
        for (int i = 0; i < handling.size(); ) {
            Stream s = handling.get(i);
            if (!s.exchange.done && now - s.handlerStarted >= handlerTimeout) {
                handling.remove(i);
                handlerTimedOut(s);
            } else {
                i++;
            }
        }
        releaseAbandoned();
        requestTimeouts(now);
        sockets.tick(now);
    }

    /** The server drains: the open WebSockets close (1001). */
    void drain() {
        sockets.drain();
    }

    /** Whether a WebSocket is open on some stream. */
    boolean webSockets() {
        return sockets.any();
    }

    private void handlerTimedOut(Stream s) {
        Exchange ex = s.exchange;
        log.warn("handler for {} did not answer within {}; answering 503", ex.request.api, config.handlerTimeout());
        ex.abandoned = true;
        if (s.streamed != null) {
            API.fail(s.streamed, new BodyException(503, "the handler timed out"));
        }
        // the handler may still read the request: the stream is only reused once it finished
        abandoned.add(s);
        s.exchange = ex;
        ResponseState res = new ResponseState();
        HttpException timedOut = new HttpException(503, "the handler did not answer in time");
        API.answerFailure(router, s.request, res, timedOut);
        encode(s, res, timedOut);
    }

    /**
     * Slowloris on a stream, timed as HTTP/1.1 times a request: a request must be whole within the
     * header timeout of its stream's opening, however it trickles in, else it is answered 408, or
     * reset if its answer has begun. A body streamed to a running handler must only not stall for
     * the header timeout (its handler's body fails with 408); the handler timeout bounds the rest.
     */
    private void requestTimeouts(long now) {
        long timeout = config.headerTimeout().toNanos();
        streams.forEach(s -> {
            if (s.remoteClosed() || s.webSocket != null) {
                return;
            }
            if (s.streamed != null && s.exchange != null) {
                if (now - s.activeAt >= timeout) {
                    s.activeAt = now;
                    API.fail(s.streamed, new BodyException(408, "request body not received in time"));
                }
            } else if (now - s.openedAt >= timeout) {
                if (!s.answered && s.exchange == null) {
                    answerError(s, 408, "request not received in time");
                } else if (s.exchange == null) {
                    log.debug("stream {}: the request still arriving past the header timeout, its answer begun", s.id);
                    connection.reset(s.id, ErrorCode.CANCEL, false);
                }
            }
        });
    }

    private void releaseAbandoned() {
        for (int i = abandoned.size() - 1; i >= 0; i--) {
            Stream s = abandoned.get(i);
            if (s.exchange == null || s.exchange.done) {
                abandoned.remove(i);
                if (streams.get(s.id) != s) {
                    s.recycle();
                }
            }
        }
    }

    /**
     * Answers a request the connection refuses (431, 413, 408, 417): through the router's filters
     * and mappers when its head was read, else its default error answer.
     */
    private void answerError(Stream s, int status, String message) {
        answerError(s, new HttpException(status, message));
    }

    private void answerError(Stream s, HttpException refusal) {
        s.response.reset();
        if (s.streamed != null) {
            API.fail(s.streamed, new BodyException(refusal.status(), refusal.getMessage()));
        }
        boolean headRead = s.request.method != null && s.request.data != null;
        if (headRead && !s.started) {
            s.started = true;
            EndRecord.started(listeners, s.request);
        }
        encode(s, API.refusal(router, headRead ? s.request : null, headRead ? new ResponseState() : s.response, s.response, refusal),
                refusal);
    }

    private void respond(Stream s, ResponseState res, Throwable failure) {
        dev.spindle.core.websocket.WebSocketAccept socket = res.webSocket;
        res.webSocket = null;
        if (socket != null && failure == null) {
            if (!s.remoteClosed() && !s.answered && !writer.stopped()) {
                started(s);
                s.end = listeners != null || s.request.onEnd != null ? EndRecord.of(listeners, s.request, true, 200, null, true) : null;
                sockets.open(s, res, socket);
                return;
            }
            failure = new HttpException(400, "an extended CONNECT that ended its stream opens no WebSocket");
            res.reset();
        }
        if (failure != null) {
            API.answerFailure(router, s.request, res, failure);
        }
        if (ResponseCoding.apply(s.request, res)) {
            failure = ResponseCoding.notAcceptable();
            API.answerFailure(router, s.request, res, failure);
            ResponseCoding.apply(s.request, res);
        }
        encode(s, res, failure);
    }

    /** Sends the stream's answer, its end reported once its END_STREAM goes out. */
    private void encode(Stream s, ResponseState res, Throwable failure) {
        if (s.answered || writer.stopped()) {
            return;
        }
        if (listeners != null || s.request.onEnd != null || s.exchange != null) {
            started(s);
            s.end = EndRecord.of(listeners, s.request, s.request.method != null, res.status, failure, true);
        }
        writer.encode(s, res);
    }

    /** Tells the listeners once that the stream's exchange began. */
    private void started(Stream s) {
        if (!s.started) {
            s.started = true;
            EndRecord.started(listeners, s.request);
        }
    }

    /** A stream refused unprocessed (REFUSED_STREAM): an exchange that ends at once. */
    void refused() {
        if (listeners != null) {
            EndRecord.refused(listeners, "HTTP/2");
        }
    }

    /** The stream closed before its answer ended: its exchange, begun or answered, ends aborted. */
    private void aborted(Stream s) {
        EndRecord end = s.end;
        s.end = null;
        if (end == null && s.started && !s.answered) {
            end = EndRecord.of(listeners, s.request, true, 0, null, true);
        }
        if (end != null) {
            end.end(ExchangeEnd.Outcome.ABORTED);
        }
    }

    /**
     * The stream closed: its body and budget are let go, and a handler still running keeps it
     * (among the abandoned, not in the peer's concurrency slots) until it ends.
     *
     * @return whether the stream may be reused now
     */
    boolean drop(Stream s) {
        sockets.drop(s);
        aborted(s);
        backlogged.remove(s);
        if (s.streamed != null && !s.remoteClosed()) {
            API.fail(s.streamed, new IOException("the stream was reset"));
        }
        if (s.received > 0 && s.streamed != null) {
            // bytes held for the consumer that will never take them go back to the connection's window
            guards.consumed(null, s.pendingBytes());
        }
        if (budget != null && s.budgeted > 0) {
            budget.release(s.budgeted);
            s.budgeted = 0;
        }
        Exchange ex = s.exchange;
        if (ex != null && !ex.done) {
            ex.abandoned = true;
            handling.remove(s);
            if (!abandoned.contains(s)) {
                abandoned.add(s);
            }
            return false;
        }
        return !abandoned.contains(s) && !s.queued;
    }

    /** Whether a blocking or asynchronous handler is in flight. */
    boolean handling() {
        return !handling.isEmpty();
    }

    /** Streams that closed while their handler still runs: bounded apart from the peer's concurrency limit. */
    int abandonedCount() {
        return abandoned.size();
    }

    /** Bytes the abandoned streams hold, for tests of the connection's bounds. */
    long abandonedBytes() {
        long total = 0;
        for (Stream s : abandoned) {
            total += s.bytes.length;
        }
        return total;
    }
}
