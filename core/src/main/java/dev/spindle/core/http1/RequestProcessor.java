// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.ExchangeListener;
import dev.spindle.core.HttpException;
import dev.spindle.core.Method;
import dev.spindle.core.RequestBody;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.compress.RequestDecoding;
import dev.spindle.core.compress.ResponseCoding;
import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.Deadlines;
import dev.spindle.core.exchange.EndRecord;
import dev.spindle.core.exchange.Exchange;
import dev.spindle.core.exchange.HandlerRunner;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.ResponseState;
import dev.spindle.core.exchange.Route;
import dev.spindle.core.spi.Connection.State;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of one HTTP/1.1 connection, in order: parses them from the input, routes each,
 * runs its handler ({@link HandlerRunner}), streams its request body to it, and has its response
 * written ({@link ResponseWriter}); a pipelined request waits until the one before it is answered.
 * It answers bad input, budgets and timeouts with the right status and a close. The
 * {@link HttpConnection} around it moves bytes in and out and keeps the connection's life.
 */
final class RequestProcessor {
    private static final ApiAccess API = ApiAccess.get();
    private static final Logger log = LoggerFactory.getLogger(RequestProcessor.class);

    private final Router router;
    /** Who hears of every exchange's end, or null. */
    private final ExchangeListener[] listeners;
    private final ServerConfig config;
    private final Runnable wakeup;
    private final HandlerRunner handlers;
    private final ResponseWriter writer;
    private final Lifecycle life;
    private final Deadlines deadlines;
    private final int highWater;
    private final RequestParser parser;
    private final RequestState request = new RequestState();
    private final ResponseState response = new ResponseState();
    private final BodyFeed feed;
    /** The connection's input; replaced by an empty one once the connection only drops input. */
    private InputBuffer in;

    private boolean continueSent;
    private boolean processing;
    private boolean reprocess;
    /** Processing stopped at the high-water mark; {@link #outputTaken()} resumes it. */
    private boolean blockedOnOutput;
    /** A blocking or asynchronous handler in flight, or null. */
    private Exchange exchange;
    /** Whether a request may switch the connection to h2c ({@code Upgrade: h2c}). */
    private boolean h2cUpgrade;
    /** The request that switched the connection to h2c, answered 101: nothing more is parsed here. */
    private RequestState upgrade;
    private byte[] upgradeSettings;
    /** What the WebSocket handshake agreed, answered 101: nothing more is parsed here. */
    private dev.spindle.core.websocket.WebSocketAccept webSocket;
    private RequestState webSocketRequest;

    RequestProcessor(Router router, ServerConfig config, InputBuffer in, ResponseWriter writer, Lifecycle life,
            Deadlines deadlines, HandlerRunner handlers, Runnable wakeup) {
        this.router = router;
        this.listeners = API.listeners(router);
        this.config = config;
        this.in = in;
        this.writer = writer;
        this.life = life;
        this.deadlines = deadlines;
        this.handlers = handlers;
        this.wakeup = wakeup;
        this.highWater = config.writeHighWaterMark();
        this.parser = new RequestParser(config);
        this.feed = new BodyFeed(parser, config.discardLimit());
    }

    void allowH2cUpgrade() {
        h2cUpgrade = true;
    }

    /** The request that switched to h2c, or null. */
    RequestState upgrade() {
        return upgrade;
    }

    /** The SETTINGS payload its {@code HTTP2-Settings} carried. */
    byte[] upgradeSettings() {
        return upgradeSettings;
    }

    /** The WebSocket handshake that switched the connection, or null. */
    dev.spindle.core.websocket.WebSocketAccept webSocket() {
        return webSocket;
    }

    /** Its request, detached from the input. */
    RequestState webSocketRequest() {
        return webSocketRequest;
    }

    /** Whether a request switched the connection to another protocol: nothing more is parsed here. */
    private boolean switched() {
        return upgrade != null || webSocket != null;
    }

    /** Inside {@link #process()}: input must be appended, not lent (it is being parsed). */
    boolean processing() {
        return processing;
    }

    /** What an open connection is busy with. */
    State busy() {
        return exchange != null ? State.HANDLING
                : !writer.idle() ? (writer.sendingSource() ? State.DUPLEX : State.SENDING)
                : parser.inProgress(in) ? State.READING_REQUEST
                : State.IDLE;
    }

    /** Whether an open connection would read now (not held back by a handler, a full output or a body window). */
    boolean wantsInput() {
        if (feed.streaming()) {
            return API.hasRoom(feed.body()) && in.available() < highWater;
        }
        return exchange == null && !writer.sending() && !writer.full() && !switched();
    }

    /**
     * Whether an event stream is being sent, whose client ends it by closing: its end of input is
     * read, also on a connection that closes after it (a pipelined request is only buffered, up to
     * the high-water mark).
     */
    boolean watchesInput() {
        return writer.sendingSource() && !writer.full() && in.available() < highWater;
    }

    /** Nothing is pending or in flight. */
    boolean flushed() {
        return writer.idle() && exchange == null;
    }

    boolean handling() {
        return exchange != null;
    }

    boolean handlerDone() {
        return exchange.done;
    }

    boolean bodyStreaming() {
        return feed.streaming();
    }

    boolean bodyAwaited() {
        return feed.streaming() && exchange != null && API.hasRoom(feed.body());
    }

    boolean requestInProgress() {
        return parser.inProgress(in);
    }

    /** The socket took output: processing held back at the high-water mark (or a streamed body) goes on. */
    void outputTaken() {
        if ((blockedOnOutput || writer.sending()) && !writer.full()) {
            blockedOnOutput = false;
            process();
        }
    }

    /** A handler waits for a streamed body that stopped arriving: it fails with 408, and the connection ends. */
    void bodyTimedOut() {
        life.stopReading();
        feed.fail(408, "request body not received in time");
    }

    /**
     * Lets go of the buffers of a connection that only lingers (none while a body is being
     * dropped, or the strategy's memory is lent); false if it cannot now.
     */
    boolean shed(InputBuffer empty) {
        if (feed.streaming() || in.isLent()) {
            return false;
        }
        in.releaseAll();
        in = empty;
        writer.shed();
        request.reset();
        response.reset();
        return true;
    }

    /**
     * Answers {@code status} with {@code message} and a close before reading anything, such as a
     * plain HTTP request on a TLS port (a connection already being refused keeps its refusal).
     */
    void refuse(int status, String message) {
        if (!life.closing()) {
            response.reset();
            ResponseEncoder.error(writer.buffer(), response, status, message, null, ResponseEncoder.CONNECTION_CLOSE, false);
            life.stopReading();
        }
    }

    /**
     * The server's budget for buffered bodies cannot hold this connection's input: a request not
     * yet answered gets the status (503 with {@code Retry-After}, or 413) and the connection closes;
     * one already being answered just ends. A closing connection needs its input no more.
     */
    void overBudget(InputBuffer.OverBudget e) {
        log.debug("request refused ({}): {}", e.status(), e.getMessage());
        if (life.closing()) {
            return;
        }
        if (exchange != null || writer.sending() || feed.streaming()) {
            abort();
            return;
        }
        answerRefusal(e, e.status() == 503 ? "1" : null);
        life.stopReading();
        if (!processing) {
            in.discard();
        }
    }

    void process() {
        if (processing) {
            reprocess = true;
            return;
        }
        processing = true;
        try {
            do {
                reprocess = false;
                step();
            } while (reprocess && !life.aborted());
            if (life.closing()) {
                // no request will be read again: a body buffered for one is given back at once
                in.discard();
            }
        } finally {
            processing = false;
        }
    }

    private void step() {
        while (!life.aborted() && !switched()) {
            if (feed.streaming()) {
                feedBody();
                if (life.aborted()) {
                    return;
                }
            }
            if (exchange != null) {
                if (!exchange.done) {
                    sendContinueIfDemanded();
                    return;
                }
                completeExchange();
                continue;
            }
            if (writer.sending()) {
                ResponseWriter.Outcome pulled = writer.pull();
                if (pulled == ResponseWriter.Outcome.FAILED) {
                    abort();
                    return;
                }
                if (pulled == ResponseWriter.Outcome.WAIT) {
                    if (life.inputEnded() && writer.sendingSource()) {
                        log.debug("the client closed its event stream");
                        abort();
                        return;
                    }
                    blockedOnOutput = writer.full();
                    return;
                }
                continue;
            }
            if (feed.streaming() || life.closing()) {
                // still dropping the rest of an unread body, or finished
                return;
            }
            if (writer.full()) {
                blockedOnOutput = true;
                return;
            }
            int result;
            try {
                result = parser.parse(in, request);
            } catch (HttpException e) {
                rejectInput(e);
                return;
            }
            if (result == RequestParser.NEED_MORE) {
                if (life.inputEnded()) {
                    life.stopReading();
                } else if (request.expectContinue && request.version == RequestState.HTTP_1_1 && !continueSent && parser.inBody()) {
                    continueSent = true;
                    ResponseEncoder.writeContinue(writer.buffer());
                }
                return;
            }
            if (result == RequestParser.HEADERS) {
                Route route = routeAtHeaders();
                boolean streams = route != null && streams(route);
                HttpException unsupported = route == null ? null : RequestDecoding.refusal(request);
                if (unsupported != null) {
                    rejectInput(unsupported);
                    return;
                }
                try {
                    // the route's limit (or the server's, buffered or streamed), and room for a buffered body of known length
                    parser.limitBody(route != null ? route.bodyLimit(config, streams) : config.maxBodySize(), request);
                    if (!streams && !request.chunked) {
                        in.reserveFor(request.bodyStart + request.contentLength);
                    }
                } catch (HttpException e) {
                    rejectInput(e);
                    return;
                }
                if (streams) {
                    startStreamedExchange(route);
                }
                continue;
            }
            in.consumeRequest(parser.consumed());
            continueSent = false;
            dispatch(request);
            in.shrinkIfDone();
            forgetLargeBody();
        }
    }

    /**
     * The request just handled had a large body: the input buffer let its array go (or an echo
     * being sent holds it), so the request and response must not keep it reachable while the
     * connection waits or lingers, outside the budget that no longer counts it.
     */
    private void forgetLargeBody() {
        byte[] array = request.array;
        if (array != null && array.length > OutputBuffer.RETAIN_LIMIT) {
            request.reset();
            response.reset();
        }
    }

    /** The route of a request whose header section just arrived, or null when none matched (404, 405). */
    private Route routeAtHeaders() {
        try {
            return API.route(router, request);
        } catch (HttpException e) {
            return null;
        }
    }

    /**
     * Whether the route's handler gets its body streamed; else it is buffered (a blocking handler
     * run inline, which could not wait for the rest of its body on the thread that reads it).
     */
    private boolean streams(Route route) {
        return route.streamsBody && handlers.canStream(route);
    }

    private void rejectInput(HttpException e) {
        if (e instanceof InputBuffer.OverBudget over) {
            overBudget(over);
            return;
        }
        if (log.isDebugEnabled()) {
            log.debug("bad request ({}): {}", e.status(), e.getMessage());
        }
        answerRefusal(e, null);
        life.stopReading();
    }

    /**
     * Answers a request the connection refuses, with a close: through the router's filters and
     * mappers when its head was read, else its default error answer; reported to the listeners.
     */
    private void answerRefusal(HttpException e, String retryAfter) {
        boolean headRead = parser.inBody();
        if (headRead) {
            EndRecord.started(listeners, request);
        }
        response.reset();
        ResponseState res = API.refusal(router, headRead ? request : null, headRead ? new ResponseState() : response, response, e);
        if (retryAfter != null) {
            res.api.header("Retry-After", retryAfter);
        }
        boolean head = parser.requestLineParsed() && request.method == Method.HEAD;
        writer.refusal(res, head, EndRecord.of(listeners, request, headRead, res.status, e));
    }

    /** Refuses a request read whole (its body would not inflate) as one too large on the wire is: its answer, then a close. */
    private void refuseRead(RequestState req, HttpException e) {
        log.debug("request body refused ({}): {}", e.status(), e.getMessage());
        response.reset();
        ResponseState res = API.refusal(router, req, new ResponseState(), response, e);
        writer.refusal(res, req.method == Method.HEAD, EndRecord.of(listeners, req, true, res.status, e));
        life.stopReading();
    }

    private boolean keepAlive(RequestState req) {
        return config.keepAlive() && life.keepsAlive() && req.api.isKeepAliveRequested();
    }

    private void dispatch(RequestState req) {
        if (req.upgradeH2c && h2cUpgrade && upgradeToH2c(req)) {
            return;
        }
        EndRecord.started(listeners, req);
        boolean keepAlive = keepAlive(req);
        Route route = req.route;
        if (route == null) {
            try {
                route = API.route(router, req);
            } catch (HttpException e) {
                response.reset();
                finish(req, response, e, keepAlive);
                return;
            }
        }
        int coding = RequestDecoding.decoding(req);
        if (coding != RequestDecoding.NONE && req.bodyEnd > req.bodyStart) {
            HttpException refused = coding == RequestDecoding.UNSUPPORTED ? RequestDecoding.unsupported()
                    : RequestDecoding.inflateWhole(req, coding, route.bodyLimit(config, false));
            if (refused != null) {
                refuseRead(req, refused);
                return;
            }
        }
        if (handlers.deferred(route)) {
            RequestState copy = req.detach();
            if (route.async != null) {
                copy.mayBlock = false;
            }
            begin(route, new Exchange(copy, keepAlive, null));
            return;
        }
        response.reset();
        response.jsonCodec = route.json;
        finish(req, response, handlers.runInline(route, req, response), keepAlive);
    }

    /**
     * RFC 7540 3.2 (kept by RFC 9113 3.1 as deprecated, still sent by curl and the JDK client): a
     * request without a body with one valid {@code HTTP2-Settings} switches the connection to h2c,
     * answered 101 here and then on stream 1; any other is answered in HTTP/1.1, as if it had not
     * asked.
     */
    private boolean upgradeToH2c(RequestState req) {
        if (req.version != RequestState.HTTP_1_1 || req.chunked || req.bodyEnd > req.bodyStart || exchange != null) {
            return false;
        }
        java.util.List<String> values = req.api.headers("http2-settings");
        if (values.size() != 1) {
            return false;
        }
        byte[] settings;
        try {
            settings = java.util.Base64.getUrlDecoder().decode(values.get(0).trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (settings.length % 6 != 0) {
            return false;
        }
        upgrade = req.detach();
        upgradeSettings = settings;
        ResponseEncoder.writeSwitchingToH2c(writer.buffer());
        return true;
    }

    /** Hands a request to a handler that answers later (or, inline, reading its streamed body): the connection waits for it. */
    private void begin(Route route, Exchange ex) {
        exchange = ex;
        deadlines.handlerStarted();
        handlers.start(route, ex);
    }

    /** A blocking or asynchronous route: its handler gets the request now and reads the body as it arrives. */
    private void startStreamedExchange(Route route) {
        EndRecord.started(listeners, request);
        RequestState copy = request.detach();
        parser.beginStreaming(in, request);
        int coding = RequestDecoding.decoding(request);
        RequestBody body = API.newBody(request.chunked || coding != RequestDecoding.NONE ? -1 : request.contentLength, wakeup);
        API.collectLimit(body, route.bodyLimit(config, false));
        if (coding != RequestDecoding.NONE) {
            API.decode(body, coding, route.bodyLimit(config, true));
            RequestDecoding.hideCodingFields(copy);
        }
        copy.streamed = body;
        copy.mayBlock = route.blocking;
        continueSent = false;
        Exchange ex = new Exchange(copy, keepAlive(request), body);
        feed.start(body);
        deadlines.bodyStarted();
        begin(route, ex);
    }

    private void completeExchange() {
        Exchange ex = exchange;
        exchange = null;
        boolean keepAlive = ex.keepAlive && life.keepsAlive() && !life.closing();
        RequestBody body = ex.body;
        Throwable failure = ex.failure;
        if (body != null && API.decodingFailed(body)) {
            // a body that would not inflate is refused like one too large on the wire: answered, then closed
            life.stopReading();
            keepAlive = false;
        } else if (body != null && feed.body() == body && !feed.dropRest(ex.request.expectContinue && !continueSent)) {
            // dropping the rest would cost more than the limit, or the client still waits for 100
            life.stopReading();
            keepAlive = false;
        }
        finish(ex.request, ex.response, failure, keepAlive);
    }

    private void sendContinueIfDemanded() {
        RequestBody body = feed.body();
        if (body != null && !continueSent && exchange.request.expectContinue
                && exchange.request.version == RequestState.HTTP_1_1 && API.demanded(body)) {
            continueSent = true;
            ResponseEncoder.writeContinue(writer.buffer());
        }
    }

    /** Moves what has arrived of a streamed request body to its consumer, and acts on what that did. */
    private void feedBody() {
        switch (feed.feed(in, life.inputEnded())) {
            case COMPLETE -> {
                continueSent = false;
                in.bodyEnded();
            }
            case BROKEN -> life.stopReading();
            // the peer half-closed inside the body: it can never complete, and there is nobody to answer
            case CUT -> abort();
            case OPEN -> { }
        }
    }

    private void finish(RequestState req, ResponseState res, Throwable failure, boolean keepAlive) {
        // a WebSocket handshake switches whether or not HTTP connections are kept alive
        if (res.webSocket != null && failure == null && switchToWebSocket(req, res)) {
            return;
        }
        // decided again after the handler ran: the drain may have begun meanwhile, on another thread
        keepAlive &= !life.draining();
        int connection = !keepAlive ? ResponseEncoder.CONNECTION_CLOSE
                : req.version == RequestState.HTTP_1_0 ? ResponseEncoder.CONNECTION_KEEP_ALIVE
                : ResponseEncoder.CONNECTION_DEFAULT;
        if (!keepAlive) {
            life.stopReading();
        }
        if (failure != null) {
            // the router's default answer: an HttpException's status (a body broken on the wire: its status), else 500
            API.answerFailure(router, req, res, failure);
        }
        if (ResponseCoding.apply(req, res)) {
            failure = ResponseCoding.notAcceptable();
            API.answerFailure(router, req, res, failure);
            ResponseCoding.apply(req, res);
        }
        EndRecord end = EndRecord.of(listeners, req, true, res.status, failure);
        switch (writer.respond(req, res, in, connection, end)) {
            case CLOSE_AFTER -> life.stopReading();
            case FAILED -> abort();
            default -> { }
        }
    }

    /**
     * A WebSocket route accepted the handshake: answers 101 with what was agreed and the headers
     * the filters set, and the connection switches (unless it is closing, when the answer is a 503).
     */
    private boolean switchToWebSocket(RequestState req, ResponseState res) {
        dev.spindle.core.websocket.WebSocketAccept accept = res.webSocket;
        res.webSocket = null;
        if (life.closing() || life.draining()) {
            API.answerFailure(router, req, res, new HttpException(503, "the server is closing this connection"));
            return false;
        }
        ResponseEncoder.encodeWebSocketSwitch(writer.buffer(), res, accept);
        webSocket = accept;
        webSocketRequest = (req.detached ? req : req.detach()).settled();
        EndRecord end = EndRecord.of(listeners, req, true, 101, null);
        if (end != null) {
            end.end(ExchangeEnd.Outcome.COMPLETE);
        }
        return true;
    }

    void requestTimedOut() {
        log.debug("request not received within {}", config.headerTimeout());
        // a body being dropped after its answer gets no second answer
        if (!writer.hasOutbound() && !feed.streaming()) {
            answerRefusal(new HttpException(408, "request not received in time"), null);
        }
        life.stopReading();
        deadlines.requestEnded();
    }

    void handlerTimedOut() {
        Exchange ex = exchange;
        log.warn("handler for {} did not answer within {}; answering 503", ex.request.api, config.handlerTimeout());
        ex.abandoned = true;
        exchange = null;
        feed.fail(503, "the handler timed out");
        HttpException timedOut = new HttpException(503, "the handler did not answer in time");
        API.answerFailure(router, ex.request, response, timedOut);
        writer.refusal(response, ex.request.method == Method.HEAD, EndRecord.of(listeners, ex.request, true, 503, timedOut));
        life.stopReading();
    }

    /**
     * At a tick: a source being sent whose heartbeat is due is pulled, and one on a draining
     * server ends (its client reconnects elsewhere).
     */
    void tickSource(long now) {
        if (!writer.sendingSource()) {
            return;
        }
        if (life.draining()) {
            writer.drainSource();
        }
        if (writer.sourceDue() - now <= 0 || life.draining()) {
            process();
        }
    }

    /**
     * A quiet connection lets go of what its last request referred to (the array its head was
     * parsed in), which nothing reads once its exchange is over: the end record copied what it needs.
     */
    void releaseRequest() {
        if (exchange == null && !feed.streaming() && !request.detached) {
            request.reset();
        }
    }

    /** Gives up on the connection: nothing more is sent, and the strategy closes it. */
    void abort() {
        life.abort();
        release();
        in.releaseAll();
    }

    /** Lets go of everything that waits on the connection: a streamed body, a request-body consumer, a handler. */
    void release() {
        writer.release();
        feed.fail(0, "the connection was closed");
        if (exchange != null) {
            exchange.abandoned = true;
            EndRecord cut = EndRecord.of(listeners, exchange.request, true, 0, null);
            exchange = null;
            if (cut != null) {
                cut.responseBytes = -1;
                cut.end(ExchangeEnd.Outcome.ABORTED);
            }
        }
    }
}
