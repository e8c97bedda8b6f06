// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.OutputBuffer;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.tls.TlsFailure;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection to another server, without any I/O: the client side of the core's
 * sans-I/O connection. The strategy that opened the socket drives it like an accepted connection
 * ({@link OutboundConnection}: {@link #connected()}, then {@link #received}, {@link #outbound()},
 * {@link #written}, {@link #tick}, {@link #endOfInput()}, {@link #closed()}, each answering a
 * {@link Next}); the code that makes requests ({@link #send}) gets a
 * {@link CompletableFuture} per request. Both run on the connection's thread (its event loop):
 * nothing here is thread-safe but {@link #drain()}.
 *
 * <p>Requests are written in the order sent, up to {@link ClientSettings#maxPipelined()} awaiting
 * their responses at once (1 by default: one request in flight, the connection reused once it is
 * answered); none is pipelined after a non-idempotent one until that one is answered (RFC 9112
 * 9.3.2). Responses complete their requests in order. A response that does not let the connection
 * be reused ({@code Connection: close}, a body delimited by the close, HTTP/1.0 without
 * keep-alive) ends it once complete. Bodies are buffered whole, up to
 * {@link ClientSettings#maxBodySize()}, unless the request asks for its response streamed
 * ({@link ClientRequest#streamResponse()}): that request completes at the head, its body goes to a
 * {@link ResponseStream} as it arrives, and while the reader has no room the connection keeps the
 * bytes it read and reads no more.
 *
 * <p>The connection keeps its own time: the connect timeout (from its creation to
 * {@link #connected()}), the response timeout (from a request being handed to the socket to the
 * last byte of its response) and the idle timeout (no request pending for that long: it closes
 * itself, failing nothing). {@link #tick} applies them, {@link #nanosToTick} says when.
 *
 * <p>Any failure ends the connection and fails every request still pending on it: the one whose
 * response failed with the reason ({@link ClientException.Reason}), requests sent after it with
 * {@link Reason#NOT_ANSWERED}, and requests not sent at all with {@link Reason#NOT_SENT}, which a
 * pool may send again elsewhere. A connect failure or timeout fails them all with its reason.
 *
 * <p>What it answers: {@link Next#WAIT} until connected; then {@link Next#READ} (reading even when
 * idle, to learn at once that the server closed it), with writing while request bytes are pending;
 * {@link Next#CLOSE} once it is over (it never lingers: a client has nothing more to read). Its
 * {@link #state()}: {@link State#SENDING} while request bytes are pending,
 * {@link State#READING_REQUEST} while a response is partly received (the server's side of it),
 * {@link State#HANDLING} while requests wait for their responses or for the connection,
 * {@link State#IDLE} with nothing pending, {@link State#CLOSED} once over.
 *
 * <p>Completing a request's future runs its dependent actions on the connection's thread, after
 * the call that completed it has updated the connection: they may send the next request on it.
 */
public final class ClientConnection implements OutboundConnection, PoolableConnection {
    private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);
    private static final int OUTPUT_INITIAL_BYTES = 1024;

    private enum Phase { CONNECTING, OPEN, CLOSED }

    private final String authority;
    private final ClientSettings settings;
    private final LongSupplier clock;
    private final long connectNanos;
    private final long responseNanos;
    private final long idleNanos;
    private final ResponseParser parser;
    private final ResponseReceiver receiver = new ResponseReceiver() {
        @Override
        long maxBodySize() {
            return settings.maxBodySize();
        }

        @Override
        ClientCall current() {
            return inFlight.peek();
        }

        @Override
        void streamStarted(ClientCall call) {
            outcomes.add(call);
        }

        @Override
        void answered(ClientResponse response, boolean reusable) {
            ClientConnection.this.answered(response, reusable);
        }

        @Override
        ResponseStream newStream(long length) {
            return new ResponseStream(length, driver, clock.getAsLong());
        }

        @Override
        long now() {
            return clock.getAsLong();
        }
    };
    private final OutputBuffer out = new OutputBuffer(OUTPUT_INITIAL_BYTES);
    /** Bytes handed to the socket so far: what a request's first byte is measured against. */
    private long sent;
    /** Sent by the caller, not yet encoded (before the connection is open, or beyond the pipelining depth). */
    private final ArrayDeque<ClientCall> waiting = new ArrayDeque<>();
    /** Encoded, awaiting their responses, in order: the first is the one being received. */
    private final ArrayDeque<ClientCall> inFlight = new ArrayDeque<>();
    /** What is owed once the current call into the connection is done. */
    private final CallOutcomes outcomes = new CallOutcomes();
    private final long createdAt;

    private Phase phase = Phase.CONNECTING;
    /** No more requests are taken: those pending are finished, then the connection closes. */
    private boolean closing;
    private long idleSince;
    private volatile boolean drainRequested;
    private ResponseStream.Driver driver = ResponseStream.NO_DRIVER;
    /** A request's streamed body being sent. */
    private RequestUpload upload;
    /** Input read while a streamed body's reader had no room, fed on {@link #resume()}. */
    private final InputStash stash = new InputStash();
    /** The server closed its side while input was stashed: handled once the stash is fed. */
    private boolean endStashed;

    /**
     * A connection to {@code authority}, connecting from now on (its connect timeout runs).
     *
     * @param authority the destination as {@code host:port}: the {@code Host} of its requests and
     *        the destination named in failures
     * @param settings its limits and timeouts
     * @throws IllegalArgumentException if {@code authority} is empty or holds whitespace, a control
     *         character or one of {@code / ? # @}
     */
    public ClientConnection(String authority, ClientSettings settings) {
        this(authority, settings, System::nanoTime);
    }

    /**
     * As {@link #ClientConnection(String, ClientSettings)}, with the clock its timeouts are measured
     * by, for tests; {@link #tick} must be given times from the same clock.
     *
     * @param authority the destination as {@code host:port}
     * @param settings its limits and timeouts
     * @param clock the current time in nanoseconds, like {@link System#nanoTime()}
     */
    public ClientConnection(String authority, ClientSettings settings, LongSupplier clock) {
        this.authority = RequestEncoder.checkAuthority(authority);
        this.settings = settings;
        this.clock = clock;
        this.connectNanos = settings.connectTimeout().toNanos();
        this.responseNanos = settings.responseTimeout().toNanos();
        this.idleNanos = settings.idleTimeout().toNanos();
        this.parser = new ResponseParser(settings);
        this.createdAt = clock.getAsLong();
    }

    /**
     * Queues a request; it is written as soon as the connection is open and its turn comes. After
     * this, the caller asks {@link #next()} and acts on it (there are bytes to write). A connection
     * that is closed or closing fails the request at once with {@link Reason#NOT_SENT}.
     *
     * @param request the request; it must not change until its response completes
     * @return completes with the response, or fails with a {@link ClientException}
     */
    public CompletableFuture<ClientResponse> send(ClientRequest request) {
        CompletableFuture<ClientResponse> future = new CompletableFuture<>();
        send(new ClientCall(request, future));
        return future;
    }

    /**
     * As {@link #send(ClientRequest)}, with the outcome handed to {@code outcome} (a response, or
     * a {@link ClientException}) instead of a future: a pool's way, without a future per request.
     *
     * @param request the request; it must not change until its response completes
     * @param outcome called once, on the connection's thread
     */
    @Override
    public void send(ClientRequest request, BiConsumer<ClientResponse, Throwable> outcome) {
        send(new ClientCall(request, outcome));
    }

    private void send(ClientCall call) {
        ClientRequest request = call.request;
        if (phase == Phase.CLOSED || closing) {
            fail(call, Reason.NOT_SENT, phase == Phase.CLOSED ? "not sent: the connection is closed"
                    : "not sent: the connection takes no more requests (it is closing)", null);
            settle();
            return;
        }
        if (request.closes()) {
            closing = true;
        }
        waiting.add(call);
        if (phase == Phase.OPEN) {
            encodeWaiting();
        }
    }

    /**
     * The destination.
     *
     * @return its {@code host:port}
     */
    public String authority() {
        return authority;
    }

    @Override
    public void driver(ResponseStream.Driver driver) {
        this.driver = driver;
    }

    /**
     * Whether the connection is open, takes requests and has none pending: what a pool hands out first.
     *
     * @return true if a request sent now is written at once, alone
     */
    public boolean isIdle() {
        return phase == Phase.OPEN && !closing && inFlight.isEmpty() && waiting.isEmpty();
    }

    /**
     * Whether the connection takes more requests ({@link #send} does not fail them at once).
     *
     * @return false once it is closed or closing (a request or response asked for a close)
     */
    public boolean isReusable() {
        return phase != Phase.CLOSED && !closing;
    }

    /**
     * Whether the connection is over: every request on it has completed or failed.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return phase == Phase.CLOSED;
    }

    /**
     * How many requests are written (or being written) and not yet answered.
     *
     * @return the count, at most {@link ClientSettings#maxPipelined()}
     */
    public int inFlight() {
        return inFlight.size();
    }

    /** {@return the pipelining depth} */
    @Override
    public int capacity() {
        return settings.maxPipelined();
    }

    /**
     * How many requests are not yet answered, written or not.
     *
     * @return the count of requests in flight and waiting for their turn
     */
    public int pending() {
        return inFlight.size() + waiting.size();
    }

    @Override
    public Next connected() {
        if (phase != Phase.CONNECTING) {
            return next();
        }
        phase = Phase.OPEN;
        idleSince = clock.getAsLong();
        encodeWaiting();
        return next();
    }

    /** Also once open, when TLS around it failed ({@link TlsFailure}): its requests fail with that reason. */
    @Override
    public Next connectFailed(IOException cause) {
        if (cause instanceof TlsFailure tls && phase != Phase.CLOSED) {
            if (phase == Phase.CONNECTING) {
                failAll(tls.reason(), tls.getMessage(), cause);
            } else {
                failConnection(tls.reason(), tls.getMessage(), cause);
            }
            settle();
        } else if (phase == Phase.CONNECTING) {
            String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
            failAll(Reason.CONNECT_FAILED, "could not connect: " + why, cause);
            settle();
        }
        return next();
    }

    @Override
    public Next received(ByteBuffer src) {
        if (!src.hasRemaining()) {
            return next();
        }
        if (phase == Phase.CONNECTING) {
            throw new IllegalStateException("bytes received before connected()");
        }
        if (!stash.isEmpty()) {
            // a read under way when the reader ran out of room: after what waits already
            stash.keep(src);
        } else {
            parse(src);
        }
        settle();
        return next();
    }

    private void parse(ByteBuffer src) {
        try {
            while (src.hasRemaining() && phase == Phase.OPEN) {
                if (!parser.expecting()) {
                    failConnection(Reason.MALFORMED_RESPONSE, "bytes arrived while no request awaited a response", null);
                    break;
                }
                if (parser.parse(src, receiver) == ResponseParser.PAUSED) {
                    stash.keep(src);
                    return;
                }
            }
        } catch (ResponseException e) {
            failConnection(e.reason(), CallOutcomes.detail(e), null);
        }
        src.position(src.limit());
    }

    /** Feeds what was kept, as far as the reader takes it; then an end of input that came meanwhile. */
    private void feedStash() {
        parse(stash.take());
        if (stash.isEmpty() && endStashed && phase == Phase.OPEN) {
            endStashed = false;
            endOfInput();
        }
    }

    @Override
    public Next endOfInput() {
        if (phase == Phase.CONNECTING) {
            throw new IllegalStateException("end of input before connected()");
        }
        if (!stash.isEmpty()) {
            endStashed = true;
            return next();
        }
        if (phase == Phase.OPEN) {
            try {
                if (parser.expecting() && !parser.endOfInput(receiver)) {
                    failConnection(Reason.CONNECTION_CLOSED, "the server closed the connection before responding", null);
                }
            } catch (ResponseException e) {
                failConnection(e.reason(), CallOutcomes.detail(e), null);
            }
            // nothing more can arrive: the connection is over
            if (phase == Phase.OPEN) {
                log.debug("the server closed the idle connection to {}", authority);
                abandonRest("the server closed the connection", null);
            }
            settle();
        }
        return next();
    }

    @Override
    public Next resume() {
        pumpUpload();
        ClientCall head = inFlight.peek();
        if (phase == Phase.OPEN && head != null && head.stream != null) {
            if (head.stream.abandoned()) {
                // the rest of the body cannot be skipped without reading it: the connection ends
                inFlight.poll();
                abandonRest("the reader of the streamed response to " + head.request.describe() + " stopped reading it", null);
            } else {
                head.stream.lastProgress = clock.getAsLong();
                if (!stash.isEmpty()) {
                    feedStash();
                }
            }
        }
        settle();
        return next();
    }

    @Override
    public Next next() {
        return switch (phase) {
            case CONNECTING -> Next.WAIT;
            case OPEN -> Next.of(!paused(), out.pending() > 0);
            case CLOSED -> Next.CLOSE;
        };
    }

    /** Whether a streamed body's reader has no room, so the socket is not read. */
    private boolean paused() {
        if (!stash.isEmpty() || endStashed) {
            return true;
        }
        ClientCall head = inFlight.peek();
        return head != null && head.stream != null && !head.stream.hasRoom();
    }

    @Override
    public State state() {
        if (phase == Phase.CLOSED) {
            return State.CLOSED;
        }
        if (out.pending() > 0) {
            return State.SENDING;
        }
        if (parser.started()) {
            return State.READING_REQUEST;
        }
        return inFlight.isEmpty() && waiting.isEmpty() ? State.IDLE : State.HANDLING;
    }

    @Override
    public ByteBuffer outbound() {
        return out.view();
    }

    @Override
    public Next written(int bytes) {
        if (bytes == 0) {
            return next();
        }
        out.written(bytes);
        sent += bytes;
        pumpUpload();
        settle();
        return next();
    }

    /** Takes no more requests; those pending are finished, then it closes (at once when none is). */
    @Override
    public void closeAfterResponse() {
        closing = true;
        if (phase == Phase.OPEN && inFlight.isEmpty() && waiting.isEmpty()) {
            close();
        } else if (phase == Phase.CONNECTING && waiting.isEmpty()) {
            close();
        }
    }

    /** As {@link #closeAfterResponse()}, from any thread: applied at the next {@link #tick}. */
    @Override
    public void drain() {
        drainRequested = true;
    }

    @Override
    public Next tick(long now) {
        if (drainRequested && !closing) {
            closeAfterResponse();
        }
        if (phase != Phase.CLOSED) {
            CallDeadlines.expire(waiting, now, call -> fail(call, Reason.TOTAL_TIMEOUT, call.request.totalTimeoutDetail(), null));
        }
        switch (phase) {
            case CONNECTING -> {
                if (connectNanos > 0 && now - createdAt >= connectNanos) {
                    failAll(Reason.CONNECT_TIMEOUT, "not connected within " + CallOutcomes.millis(connectNanos) + " ms (connect timeout)", null);
                }
            }
            case OPEN -> {
                ClientCall head = inFlight.peek();
                if (head != null && CallDeadlines.due(head, now)) {
                    // the only way to stop its response on HTTP/1.1: the connection ends
                    failConnection(Reason.TOTAL_TIMEOUT, head.request.totalTimeoutDetail(), null);
                } else if (head != null && head.stream != null) {
                    long timeout = head.request.responseNanos(responseNanos);
                    if (timeout > 0 && !paused() && now - head.stream.lastProgress >= timeout) {
                        failConnection(Reason.RESPONSE_TIMEOUT, "no body bytes within " + CallOutcomes.millis(timeout)
                                + " ms (response timeout) of the streamed response, after " + parser.bodyReceived() + " body bytes", null);
                    }
                } else if (head != null) {
                    long timeout = head.request.responseNanos(responseNanos);
                    if (timeout > 0 && now - head.encodedAt >= timeout) {
                        failConnection(Reason.RESPONSE_TIMEOUT, "no complete response within " + CallOutcomes.millis(timeout)
                                + " ms (response timeout)" + (parser.inBody() ? ", after " + parser.bodyReceived() + " body bytes" : ""), null);
                    }
                } else if (waiting.isEmpty() && idleNanos > 0 && now - idleSince >= idleNanos) {
                    log.debug("connection to {} idle for {} ms: closing it", authority, CallOutcomes.millis(idleNanos));
                    close();
                }
            }
            case CLOSED -> { }
        }
        settle();
        return next();
    }

    @Override
    public long nanosToTick(long now) {
        long deadline = switch (phase) {
            case CONNECTING -> connectNanos > 0 ? createdAt + connectNanos : Long.MAX_VALUE;
            case OPEN -> {
                ClientCall head = inFlight.peek();
                if (head != null) {
                    long timeout = head.request.responseNanos(responseNanos);
                    if (head.stream != null) {
                        yield timeout > 0 && !paused() ? head.stream.lastProgress + timeout : Long.MAX_VALUE;
                    }
                    yield timeout > 0 ? head.encodedAt + timeout : Long.MAX_VALUE;
                }
                yield idleNanos > 0 && waiting.isEmpty() ? idleSince + idleNanos : Long.MAX_VALUE;
            }
            case CLOSED -> Long.MAX_VALUE;
        };
        if (phase != Phase.CLOSED) {
            deadline = Math.min(deadline, Math.min(CallDeadlines.earliest(waiting), CallDeadlines.earliest(inFlight)));
        }
        return deadline == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, deadline - now);
    }

    @Override
    public void closed() {
        if (phase == Phase.CONNECTING) {
            failAll(Reason.NOT_SENT, "not sent: the connection was closed before it connected", null);
        } else if (phase == Phase.OPEN) {
            failConnection(Reason.CONNECTION_CLOSED, "the connection was closed before the response was complete", null);
        }
        settle();
    }

    @Override
    public String toString() {
        return "ClientConnection[" + authority + ", " + phase + ", " + inFlight.size() + " in flight, " + waiting.size() + " waiting]";
    }

    /** Encodes waiting requests while the pipelining depth allows, none after a non-idempotent one. */
    private void encodeWaiting() {
        while (upload == null && !waiting.isEmpty() && inFlight.size() < settings.maxPipelined()
                && (inFlight.isEmpty() || inFlight.peekLast().request.isIdempotent())) {
            ClientCall call = waiting.poll();
            call.firstByte = sent + out.pending();
            RequestEncoder.encode(call.request, authority, out);
            call.encodedAt = clock.getAsLong();
            if (inFlight.isEmpty()) {
                parser.begin(call.request.isHead());
            }
            inFlight.add(call);
            if (call.request.streamsBody()) {
                // nothing goes behind a streamed body until it is sent whole
                upload = RequestUpload.start(call, driver::wakeup);
            }
        }
        pumpUpload();
    }

    /** Encodes what the streamed body's source gave, while the output has room; the response timeout waits for its end. */
    private void pumpUpload() {
        if (upload == null || phase != Phase.OPEN) {
            return;
        }
        try {
            if (upload.pump(out, clock) == RequestUpload.Progress.DONE) {
                upload = null;
                encodeWaiting();
            }
        } catch (ResponseException e) {
            failConnection(e.reason(), e.getMessage(), null);
        }
    }

    /** Whether a request's streamed body is being sent: more of it may come from its source at any time. */
    boolean sendingBody() {
        return upload != null;
    }

    /** The response to the first request in flight is complete. */
    private void answered(ClientResponse response, boolean reusable) {
        ClientCall call = inFlight.poll();
        if (call.stream == null) {
            call.response = response;
            outcomes.add(call);
        } else {
            outcomes.streamEnded(call.stream, reusable);
        }
        if (!reusable) {
            // the server ends the connection here: what was pipelined behind it will not be answered
            abandonRest("the response to " + call.request.describe() + " did not let the connection be reused", null);
            return;
        }
        if (!inFlight.isEmpty()) {
            parser.begin(inFlight.peek().request.isHead());
        }
        encodeWaiting();
        if (inFlight.isEmpty() && waiting.isEmpty()) {
            idleSince = clock.getAsLong();
            if (closing) {
                close();
            }
        }
    }

    /**
     * The connection failed while open: the first request in flight fails with {@code reason}
     * (or {@link Reason#NOT_SENT} if the connection closed before any of its bytes left); the
     * rest are abandoned ({@link #abandonRest}).
     */
    private void failConnection(Reason reason, String detail, Throwable cause) {
        log.debug("connection to {} failed ({}): {}", authority, reason, detail);
        ClientCall head = inFlight.poll();
        if (head != null) {
            if (reason == Reason.CONNECTION_CLOSED && sent <= head.firstByte) {
                fail(head, Reason.NOT_SENT, "not sent: " + detail, cause);
            } else {
                fail(head, reason, detail, cause);
            }
        }
        abandonRest(detail, cause);
    }

    /**
     * The connection ends with requests still pending: those in flight fail with
     * {@link Reason#NOT_ANSWERED} (or {@link Reason#NOT_SENT} if none of their bytes left), the
     * waiting ones with {@link Reason#NOT_SENT}; then it is closed.
     */
    private void abandonRest(String detail, Throwable cause) {
        for (ClientCall call; (call = inFlight.poll()) != null; ) {
            if (sent > call.firstByte) {
                fail(call, Reason.NOT_ANSWERED, "sent but not answered: an earlier request on its connection failed or ended it ("
                        + detail + ")", cause);
            } else {
                fail(call, Reason.NOT_SENT, "not sent: its connection ended (" + detail + ")", cause);
            }
        }
        for (ClientCall call; (call = waiting.poll()) != null; ) {
            fail(call, Reason.NOT_SENT, "not sent: its connection ended (" + detail + ")", cause);
        }
        close();
    }

    /** Every request fails with {@code reason}: none was sent (the connection never opened). */
    private void failAll(Reason reason, String detail, Throwable cause) {
        log.debug("connection to {} failed ({}): {}", authority, reason, detail);
        for (ClientCall call; (call = waiting.poll()) != null; ) {
            fail(call, reason, detail, cause);
        }
        close();
    }

    private void fail(ClientCall call, Reason reason, String detail, Throwable cause) {
        outcomes.fail(call, new ClientException(reason, authority, call.request.describe(), detail, cause));
    }

    /** Over, with nothing pending left to fail. */
    private void close() {
        phase = Phase.CLOSED;
        closing = true;
        out.clear();
        receiver.clear();
        stash.clear();
        if (upload != null) {
            upload.cancel();
            upload = null;
        }
    }

    /** Hands on what is owed, once the connection is consistent again. */
    private void settle() {
        outcomes.settle(driver, phase == Phase.OPEN);
    }
}
