// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.http2.ErrorCode;
import dev.spindle.core.http2.FrameListener;
import dev.spindle.core.http2.HpackDecoder;
import dev.spindle.core.http2.Http2Codec;
import dev.spindle.core.http2.Http2Exception;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.tls.TlsFailure;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection to another server (RFC 9113), without any I/O: the client side of the
 * core's sans-I/O connection, driven by a strategy exactly like {@link ClientConnection}, with
 * the frames and HPACK of the core's {@code http2} package ({@link Http2Codec}).
 *
 * <p>Each request is a stream; up to the server's {@code SETTINGS_MAX_CONCURRENT_STREAMS} are open
 * at once (100 until its SETTINGS arrive), the rest wait on the connection. Flow control both ways:
 * request bodies go out in DATA frames as the server's windows allow; a stream may receive 256 KiB
 * ahead of its reader and the connection 16 MiB, given back as bodies are consumed (a streamed
 * body's reader that lags holds its own stream's window, not the connection). Responses are
 * checked as RFC 9113 8 asks and built into the same {@link ClientResponse} as over HTTP/1.1
 * ({@code version()} says {@code HTTP/2}), buffered up to {@link ClientSettings#maxBodySize()} or
 * streamed.
 *
 * <p>Failures are per stream where HTTP/2 allows: a malformed response, a body too large or a
 * response timeout resets that stream ({@code RST_STREAM}) and fails its request; the connection
 * goes on. A stream the server refuses ({@code REFUSED_STREAM}) or did not process before its
 * {@code GOAWAY} (ids above {@code last_stream_id}, RFC 9113 6.8) fails {@link Reason#NOT_SENT},
 * which a pool sends again on another connection; another reset is {@link Reason#STREAM_RESET}. A
 * connection error (a frame breaking the protocol, a SETTINGS or PING flood, a bad header block)
 * sends {@code GOAWAY} and fails every request pending with {@link Reason#MALFORMED_RESPONSE}
 * naming the error. Timeouts are {@link ClientConnection}'s: connect, response (per stream), idle.
 * On the connection's thread, like {@link ClientConnection}.
 */
public final class Http2ClientConnection implements OutboundConnection, PoolableConnection, FrameListener {
    private static final Logger log = LoggerFactory.getLogger(Http2ClientConnection.class);
    private static final int STREAM_WINDOW = 256 * 1024;
    private static final int CONNECTION_WINDOW = 16 << 20;
    private static final int MAX_FRAME_SIZE = 16_384;
    /** The streams assumed allowed until the server's SETTINGS say (RFC 9113 6.5.2 advises no fewer than 100). */
    static final int DEFAULT_MAX_STREAMS = 100;
    /** DATA frames are cut only while less than this waits to be written. */
    private static final int OUTPUT_HIGH_WATER = 64 * 1024;
    /** SETTINGS and PING frames a server may send per 30 s (the servers' own limit). */
    private static final int CONTROL_FRAMES_PER_30S = 1000;
    /** How long a connection that ended in error spends writing its GOAWAY. */
    private static final long GOAWAY_LINGER_NANOS = 1_000_000_000L;

    private enum Phase { CONNECTING, OPEN, ENDING, CLOSED }

    private static final HpackDecoder.Sink DISCARD = (n, no, nl, v, vo, vl) -> { };

    private final String authority;
    private final String scheme;
    private final ClientSettings settings;
    private final LongSupplier clock;
    private final long connectNanos;
    private final long responseNanos;
    private final long idleNanos;
    private final long createdAt;
    private final Http2Codec codec;
    private final HashMap<Integer, Http2ClientStream> streams = new HashMap<>();
    /** Streams with request body left to send, in turn. */
    private final ArrayDeque<Http2ClientStream> sending = new ArrayDeque<>();
    private final ArrayDeque<ClientCall> waiting = new ArrayDeque<>();
    /** What is owed once the current call into the connection is done. */
    private final CallOutcomes outcomes = new CallOutcomes();
    private Phase phase = Phase.CONNECTING;
    /** No more requests are taken; those pending are finished. */
    private boolean closing;
    /** No more streams are opened (the server's GOAWAY, or the ids ran out). */
    private boolean goneAway;
    private long endingSince;
    private int nextStreamId = 1;
    private int peerMaxStreams = DEFAULT_MAX_STREAMS;
    private int peerInitialWindow = Http2Codec.DEFAULT_WINDOW_SIZE;
    private int peerMaxFrameSize = Http2Codec.DEFAULT_MAX_FRAME_SIZE;
    private long sendWindow = Http2Codec.DEFAULT_WINDOW_SIZE;
    private int receiveWindow = CONNECTION_WINDOW;
    private int unacknowledged;
    /** The settings of the SETTINGS frame being read, applied at its end; -1: not in it. */
    private long newMaxStreams = -1, newInitialWindow = -1, newMaxFrameSize = -1, newTableSize = -1;
    private long sent;
    /**
     * The earliest deadline while open, kept between changes: asked after every event, it is
     * worked out again only once streams come or go, a reader makes room or a tick ran (a deadline
     * that moved later meanwhile only brings a tick early, which finds nothing due).
     */
    private long openDeadline;
    private boolean deadlineStale = true;
    /** Open streams whose response body streams to a reader: {@link #resume()} feeds them. */
    private int streamedResponses;
    private long idleSince;
    private volatile boolean drainRequested;
    private ResponseStream.Driver driver = ResponseStream.NO_DRIVER;

    /**
     * A connection to {@code authority}, connecting from now on.
     *
     * @param authority the destination as {@code host:port}: the {@code :authority} of its requests
     * @param secure whether it runs over TLS ({@code :scheme} https)
     * @param settings its limits and timeouts ({@link ClientSettings#maxPipelined()} does not apply)
     * @param clock the current time in nanoseconds, like {@link System#nanoTime()}
     */
    public Http2ClientConnection(String authority, boolean secure, ClientSettings settings, LongSupplier clock) {
        this.authority = RequestEncoder.checkAuthority(authority);
        this.scheme = secure ? "https" : "http";
        this.settings = settings;
        this.clock = clock;
        this.connectNanos = settings.connectTimeout().toNanos();
        this.responseNanos = settings.responseTimeout().toNanos();
        this.idleNanos = settings.idleTimeout().toNanos();
        this.codec = new Http2Codec(MAX_FRAME_SIZE, 4096, settings.maxHeaderSize(), CONTROL_FRAMES_PER_30S);
        this.createdAt = clock.getAsLong();
    }

    /**
     * Queues a request; it is sent on a stream of its own as soon as the connection is open and the
     * server's limit on concurrent streams allows.
     *
     * @param request the request; it must not change until its response completes
     * @return completes with the response, or fails with a {@link ClientException}
     */
    public CompletableFuture<ClientResponse> send(ClientRequest request) {
        CompletableFuture<ClientResponse> future = new CompletableFuture<>();
        send(new ClientCall(request, future));
        return future;
    }

    @Override
    public void send(ClientRequest request, BiConsumer<ClientResponse, Throwable> outcome) {
        send(new ClientCall(request, outcome));
    }

    private void send(ClientCall call) {
        deadlineStale = true;
        if (phase.compareTo(Phase.OPEN) > 0 || closing) {
            fail(call, Reason.NOT_SENT, "not sent: the connection " + (closing ? "takes no more requests (it is closing)" : "is closed"), null);
        } else {
            waiting.add(call);
            if (phase == Phase.OPEN) {
                openStreams();
                pumpData();
            }
        }
        settle();
    }

    @Override
    public void driver(ResponseStream.Driver driver) {
        this.driver = driver;
    }

    @Override
    public boolean isIdle() {
        return phase == Phase.OPEN && !closing && streams.isEmpty() && waiting.isEmpty();
    }

    @Override
    public boolean isReusable() {
        return phase.compareTo(Phase.OPEN) <= 0 && !closing;
    }

    @Override
    public int pending() {
        return streams.size() + waiting.size();
    }

    /** {@return the streams the server allows open at once (100 until it says)} */
    @Override
    public int capacity() {
        return Math.max(1, peerMaxStreams);
    }

    @Override
    public Next connected() {
        if (phase != Phase.CONNECTING) {
            return next();
        }
        phase = Phase.OPEN;
        idleSince = clock.getAsLong();
        codec.preface(Http2Codec.SETTINGS_ENABLE_PUSH, 0, Http2Codec.SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW,
                Http2Codec.SETTINGS_MAX_FRAME_SIZE, MAX_FRAME_SIZE, Http2Codec.SETTINGS_MAX_HEADER_LIST_SIZE, settings.maxHeaderSize());
        codec.windowUpdate(0, CONNECTION_WINDOW - Http2Codec.DEFAULT_WINDOW_SIZE);
        openStreams();
        pumpData();
        settle();
        return next();
    }

    @Override
    public Next connectFailed(IOException cause) {
        if (cause instanceof TlsFailure tls && phase.compareTo(Phase.OPEN) <= 0) {
            failEverything(tls.reason(), tls.getMessage(), cause);
        } else if (phase == Phase.CONNECTING) {
            String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
            failEverything(Reason.CONNECT_FAILED, "could not connect: " + why, cause);
        }
        settle();
        return next();
    }

    @Override
    public Next received(ByteBuffer src) {
        if (phase == Phase.CONNECTING) {
            throw new IllegalStateException("bytes received before connected()");
        }
        while (src.hasRemaining() && phase == Phase.OPEN) {
            try {
                codec.read(src, this);
            } catch (Http2Exception e) {
                if (e.connectionError()) {
                    connectionError(e.code(), e.getMessage());
                } else {
                    resetStream(e.streamId(), e.code(), Reason.MALFORMED_RESPONSE, "HTTP/2 stream error " + e.code() + ": " + e.getMessage());
                }
            } catch (ResponseException e) {
                // thrown while a stream's frame was handled: that stream alone
                resetStream(blockStreamOrCurrent, ErrorCode.PROTOCOL_ERROR, e.reason(), CallOutcomes.detail(e));
            }
        }
        src.position(src.limit());
        pumpData();
        settle();
        return next();
    }

    /** The stream whose frame is being handled, for a {@link ResponseException} out of it. */
    private int blockStreamOrCurrent;

    @Override
    public Next endOfInput() {
        if (phase == Phase.OPEN) {
            failOpen(Reason.CONNECTION_CLOSED, "the server closed the connection", null);
        }
        settle();
        return next();
    }

    @Override
    public Next resume() {
        deadlineStale = true;
        if (phase == Phase.OPEN && streamedResponses > 0) {
            long now = clock.getAsLong();
            for (Http2ClientStream s : new ArrayList<>(streams.values())) {
                if (s.call.stream == null) {
                    continue;
                }
                if (s.call.stream.abandoned()) {
                    reset(s, ErrorCode.CANCEL);
                    s.call.stream.fail(failure(s.call, Reason.NOT_ANSWERED, "the reader stopped reading the streamed response", null));
                    continue;
                }
                s.call.stream.lastProgress = now;
                consumed(s, s.feedStash(now));
                if (s.remoteEnded && s.drained()) {
                    finish(s);
                }
            }
        }
        if (phase == Phase.OPEN && !sending.isEmpty()) {
            pumpData();
        }
        settle();
        return next();
    }

    @Override
    public Next next() {
        return switch (phase) {
            case CONNECTING -> Next.WAIT;
            case OPEN -> codec.pending() > 0 ? Next.READ_WRITE : Next.READ;
            case ENDING -> codec.pending() > 0 ? Next.WRITE : Next.CLOSE;
            case CLOSED -> Next.CLOSE;
        };
    }

    @Override
    public State state() {
        if (phase.compareTo(Phase.ENDING) >= 0) {
            return phase == Phase.CLOSED ? State.CLOSED : State.SENDING;
        }
        if (codec.pending() > 0) {
            return State.SENDING;
        }
        return streams.isEmpty() && waiting.isEmpty() ? State.IDLE : State.HANDLING;
    }

    @Override
    public ByteBuffer outbound() {
        return codec.outbound();
    }

    @Override
    public Next written(int bytes) {
        if (bytes > 0) {
            codec.written(bytes);
            sent += bytes;
            pumpData();
            settle();
        }
        return next();
    }

    @Override
    public void closeAfterResponse() {
        closing = true;
        if (streams.isEmpty() && waiting.isEmpty()) {
            if (phase == Phase.CONNECTING) {
                phase = Phase.CLOSED;
            } else {
                goAway(ErrorCode.NO_ERROR, null);
            }
        }
        settle();
    }

    @Override
    public void drain() {
        drainRequested = true;
    }

    @Override
    public Next tick(long now) {
        deadlineStale = true;
        if (drainRequested && !closing) {
            closeAfterResponse();
        }
        if (phase.compareTo(Phase.OPEN) <= 0) {
            CallDeadlines.expire(waiting, now, call -> fail(call, Reason.TOTAL_TIMEOUT, call.request.totalTimeoutDetail(), null));
        }
        switch (phase) {
            case CONNECTING -> {
                if (connectNanos > 0 && now - createdAt >= connectNanos) {
                    failEverything(Reason.CONNECT_TIMEOUT, "not connected within " + CallOutcomes.millis(connectNanos) + " ms (connect timeout)", null);
                }
            }
            case OPEN -> {
                for (Http2ClientStream s : new ArrayList<>(streams.values())) {
                    if (CallDeadlines.due(s.call, now)) {
                        reset(s, ErrorCode.CANCEL);
                        failStream(s, Reason.TOTAL_TIMEOUT, s.call.request.totalTimeoutDetail(), null);
                        continue;
                    }
                    long due = deadline(s);
                    if (due != Long.MAX_VALUE && now >= due) {
                        long timeout = s.call.request.responseNanos(responseNanos);
                        reset(s, ErrorCode.CANCEL);
                        failStream(s, Reason.RESPONSE_TIMEOUT, (s.call.stream != null ? "no body bytes within " : "no complete response within ")
                                + CallOutcomes.millis(timeout) + " ms (response timeout)", null);
                    }
                }
                if (streams.isEmpty() && waiting.isEmpty() && idleNanos > 0 && now - idleSince >= idleNanos) {
                    log.debug("HTTP/2 connection to {} idle for {} ms: closing it", authority, CallOutcomes.millis(idleNanos));
                    closing = true;
                    goAway(ErrorCode.NO_ERROR, null);
                }
                pumpData();
            }
            case ENDING -> {
                if (now - endingSince >= GOAWAY_LINGER_NANOS) {
                    phase = Phase.CLOSED;
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
            case CONNECTING -> Math.min(connectNanos > 0 ? createdAt + connectNanos : Long.MAX_VALUE, CallDeadlines.earliest(waiting));
            case OPEN -> {
                if (deadlineStale) {
                    long d = streams.isEmpty() && waiting.isEmpty() && idleNanos > 0 ? idleSince + idleNanos : Long.MAX_VALUE;
                    for (Http2ClientStream s : streams.values()) {
                        d = Math.min(d, deadline(s));
                        if (s.call.request.hasDeadline() && s.call.stream == null) {
                            d = Math.min(d, s.call.request.deadline());
                        }
                    }
                    openDeadline = Math.min(d, CallDeadlines.earliest(waiting));
                    deadlineStale = false;
                }
                yield openDeadline;
            }
            case ENDING -> endingSince + GOAWAY_LINGER_NANOS;
            case CLOSED -> Long.MAX_VALUE;
        };
        return deadline == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, deadline - now);
    }

    private long deadline(Http2ClientStream s) {
        long timeout = s.call.request.responseNanos(responseNanos);
        if (timeout <= 0) {
            return Long.MAX_VALUE;
        }
        ResponseStream body = s.call.stream;
        if (body != null) {
            return body.hasRoom() && s.drained() ? body.lastProgress + timeout : Long.MAX_VALUE;
        }
        return s.call.encodedAt + timeout;
    }

    @Override
    public void closed() {
        if (phase == Phase.CONNECTING) {
            failEverything(Reason.NOT_SENT, "not sent: the connection was closed before it connected", null);
        } else if (phase == Phase.OPEN || phase == Phase.ENDING) {
            failOpen(Reason.CONNECTION_CLOSED, "the connection was closed before the response was complete", null);
        }
        phase = Phase.CLOSED;
        settle();
    }

    @Override
    public String toString() {
        return "Http2ClientConnection[" + authority + ", " + phase + ", " + streams.size() + " streams, " + waiting.size() + " waiting]";
    }

    /** Opens a stream for each waiting request while the server's limit allows. */
    private void openStreams() {
        while (!waiting.isEmpty() && !goneAway && phase == Phase.OPEN && streams.size() < peerMaxStreams) {
            if (nextStreamId < 0) {
                // the ids ran out (RFC 9113 5.1.1): a new connection carries the rest
                closing = true;
                goneAway = true;
                for (ClientCall call; (call = waiting.poll()) != null; ) {
                    fail(call, Reason.NOT_SENT, "not sent: the connection's stream ids ran out", null);
                }
                return;
            }
            ClientCall call = waiting.poll();
            int id = nextStreamId;
            nextStreamId += 2;
            call.firstByte = sent + codec.pending();
            Http2ClientStream s = new Http2ClientStream(call, id, peerInitialWindow, STREAM_WINDOW, driver::wakeup);
            Http2RequestEncoder.encode(s.call.request, s.id, !s.hasBody(), scheme, authority, peerMaxFrameSize, codec);
            call.encodedAt = clock.getAsLong();
            streams.put(id, s);
            deadlineStale = true;
            if (s.hasBody()) {
                sending.add(s);
            } else {
                // the HEADERS frame ended the request's half
                s.endSent = true;
            }
        }
    }

    /** Cuts DATA frames from the request bodies in turn, as the windows and the output allow. */
    private void pumpData() {
        int stalled = 0;
        while (phase == Phase.OPEN && !sending.isEmpty() && sendWindow > 0 && codec.pending() < OUTPUT_HIGH_WATER && stalled < sending.size()) {
            Http2ClientStream s = sending.poll();
            int max = (int) Math.min(Math.min(s.sendWindow, sendWindow), peerMaxFrameSize);
            int n;
            try {
                n = max > 0 ? s.nextData(codec, max, clock) : -1;
            } catch (ResponseException e) {
                reset(s, ErrorCode.CANCEL);
                failStream(s, e.reason(), e.getMessage(), null);
                continue;
            }
            if (n > 0) {
                s.sendWindow -= n;
                sendWindow -= n;
                stalled = 0;
            } else if (n < 0) {
                stalled++;
            }
            if (!s.endSent) {
                sending.add(s);
            }
        }
    }

    @Override
    public void data(int streamId, ByteBuffer data, int flowControlledLength, boolean endStream) throws Http2Exception {
        if (flowControlledLength > receiveWindow) {
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection's window");
        }
        receiveWindow -= flowControlledLength;
        Http2ClientStream s = stream(streamId, "DATA");
        if (s == null) {
            consumed(null, flowControlledLength);
            return;
        }
        if (s.remoteEnded) {
            throw Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, "DATA after END_STREAM");
        }
        if (!s.headDone()) {
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "DATA before the response head");
        }
        if (flowControlledLength > s.receiveWindow) {
            throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the stream's window");
        }
        s.receiveWindow -= flowControlledLength;
        int padding = flowControlledLength - data.remaining();
        blockStreamOrCurrent = streamId;
        int taken = s.body(data, settings.maxBodySize(), clock.getAsLong());
        consumed(s, taken + padding);
        if (endStream) {
            s.remoteEnded = true;
            if (s.drained()) {
                finish(s);
            }
        }
    }

    @Override
    public void headers(int streamId, ByteBuffer fragment, boolean endHeaders, boolean endStream, boolean dependsOnItself) throws Http2Exception {
        codec.beginHeaderBlock(streamId, endStream, fragment);
        if (endHeaders) {
            blockEnded();
        }
    }

    @Override
    public void continuation(int streamId, ByteBuffer fragment, boolean endHeaders) throws Http2Exception {
        codec.continueHeaderBlock(fragment);
        if (endHeaders) {
            blockEnded();
        }
    }

    /** A whole header block is here: decoded, even for a stream that is gone (the table stays in step, RFC 9113 4.3). */
    private void blockEnded() throws Http2Exception {
        int id = codec.headerBlockStream();
        boolean blockEndStream = codec.headerBlockEndsStream();
        Http2ClientStream s = stream(id, "HEADERS");
        if (s == null) {
            codec.decodeHeaderBlock(DISCARD);
            return;
        }
        s.beginBlock();
        boolean fits = codec.decodeHeaderBlock(s);
        if (s.remoteEnded) {
            throw Http2Exception.stream(id, ErrorCode.STREAM_CLOSED, "HEADERS after END_STREAM");
        }
        blockStreamOrCurrent = id;
        boolean trailers = s.headDone();
        boolean finalHead = s.blockDecoded(fits, settings.maxHeaderCount(), blockEndStream, settings.maxBodySize(), driver, clock.getAsLong());
        if (finalHead && s.call.stream != null) {
            streamedResponses++;
            outcomes.add(s.call);
        }
        if (blockEndStream && (finalHead || trailers)) {
            s.remoteEnded = true;
            if (s.drained()) {
                finish(s);
            }
        }
    }

    /** The stream {@code id} if open; null for one that ended; a connection error for one never opened (or the server's own). */
    private Http2ClientStream stream(int id, String frame) throws Http2Exception {
        Http2ClientStream s = streams.get(id);
        if (s == null && (id % 2 == 0 || id >= nextStreamId)) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, frame + " on stream " + id + ", which this client never opened");
        }
        return s;
    }

    /** The response on {@code s} is complete: its request completes, its stream leaves the connection. */
    private void finish(Http2ClientStream s) {
        ClientResponse response;
        try {
            response = s.ended();
        } catch (ResponseException e) {
            if (!s.endSent) {
                // the request's half is still open: closed by the stream error (RFC 9113 8.1.1)
                reset(s, ErrorCode.PROTOCOL_ERROR);
            }
            failStream(s, e.reason(), CallOutcomes.detail(e), null);
            return;
        }
        remove(s);
        if (!s.endSent) {
            // the server answered before the request body was whole (RFC 9113 8.1): the rest is not sent
            reset(s, ErrorCode.NO_ERROR);
        }
        if (response != null) {
            s.call.response = response;
            outcomes.add(s.call);
        } else {
            outcomes.streamEnded(s.call.stream, true);
        }
    }

    private void remove(Http2ClientStream s) {
        deadlineStale = true;
        if (streams.remove(s.id) != null && s.call.stream != null) {
            streamedResponses--;
        }
        sending.remove(s);
        s.cancel();
        openStreams();
        if (streams.isEmpty()) {
            idleSince = clock.getAsLong();
            if (closing && waiting.isEmpty()) {
                goAway(ErrorCode.NO_ERROR, null);
            }
        }
    }

    @Override
    public void priority(int streamId) {
    }

    @Override
    public void rstStream(int streamId, long errorCode) throws Http2Exception {
        Http2ClientStream s = stream(streamId, "RST_STREAM");
        if (s == null) {
            return;
        }
        String code = ErrorCode.name(errorCode);
        if (errorCode == ErrorCode.REFUSED_STREAM.code()) {
            failStream(s, Reason.NOT_SENT, "not sent: the server refused the stream (REFUSED_STREAM): it did not process the request", null);
        } else if (s.remoteEnded) {
            // the response is whole (RFC 9113 8.1: the server needs no more of the request body)
            sending.remove(s);
            s.cancel();
        } else {
            failStream(s, Reason.STREAM_RESET, "the server reset the request's stream (RST_STREAM " + code + ")", null);
        }
    }

    @Override
    public void setting(int id, long value) throws Http2Exception {
        switch (id) {
            case Http2Codec.SETTINGS_MAX_CONCURRENT_STREAMS -> newMaxStreams = value;
            case Http2Codec.SETTINGS_INITIAL_WINDOW_SIZE -> newInitialWindow = value;
            case Http2Codec.SETTINGS_MAX_FRAME_SIZE -> newMaxFrameSize = value;
            case Http2Codec.SETTINGS_HEADER_TABLE_SIZE -> newTableSize = value;
            default -> { }
        }
    }

    @Override
    public void settingsEnd() throws Http2Exception {
        if (!codec.countControlFrame(clock.getAsLong())) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many SETTINGS or PING frames");
        }
        if (newMaxStreams >= 0) {
            peerMaxStreams = (int) Math.min(newMaxStreams, Integer.MAX_VALUE);
        }
        if (newInitialWindow >= 0) {
            long delta = newInitialWindow - peerInitialWindow;
            for (Http2ClientStream s : streams.values()) {
                if (s.sendWindow + delta > Http2Codec.MAX_WINDOW_SIZE) {
                    throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream's window");
                }
                s.sendWindow += (int) delta;
            }
            peerInitialWindow = (int) newInitialWindow;
        }
        if (newMaxFrameSize >= 0) {
            peerMaxFrameSize = (int) newMaxFrameSize;
        }
        if (newTableSize >= 0) {
            codec.peerHeaderTableSize(newTableSize);
        }
        newMaxStreams = newInitialWindow = newMaxFrameSize = newTableSize = -1;
        codec.settingsAck();
        openStreams();
    }

    @Override
    public void settingsAck() {
    }

    @Override
    public void ping(long payload, boolean ack) throws Http2Exception {
        if (!ack) {
            if (!codec.countControlFrame(clock.getAsLong())) {
                throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many SETTINGS or PING frames");
            }
            codec.pingAck(payload);
        }
    }

    @Override
    public void goAway(int lastStreamId, long errorCode, ByteBuffer debugData) {
        String code = ErrorCode.name(errorCode);
        log.debug("{} sent GOAWAY {} (last stream {})", authority, code, lastStreamId);
        closing = true;
        goneAway = true;
        for (Http2ClientStream s : new ArrayList<>(streams.values())) {
            if (s.id > lastStreamId) {
                failStream(s, Reason.NOT_SENT, "not sent: the server is closing the connection (GOAWAY " + code
                        + ", last stream " + lastStreamId + ") and did not process it", null);
            }
        }
        for (ClientCall call; (call = waiting.poll()) != null; ) {
            fail(call, Reason.NOT_SENT, "not sent: the server is closing the connection (GOAWAY " + code + ")", null);
        }
        if (streams.isEmpty()) {
            goAway(ErrorCode.NO_ERROR, null);
        }
    }

    @Override
    public void windowUpdate(int streamId, int increment) throws Http2Exception {
        if (streamId == 0) {
            if (sendWindow + increment > Http2Codec.MAX_WINDOW_SIZE) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "a WINDOW_UPDATE past 2^31-1 for the connection");
            }
            sendWindow += increment;
            return;
        }
        Http2ClientStream s = stream(streamId, "WINDOW_UPDATE");
        if (s != null) {
            if ((long) s.sendWindow + increment > Http2Codec.MAX_WINDOW_SIZE) {
                throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "a WINDOW_UPDATE past 2^31-1 for stream " + streamId);
            }
            s.sendWindow += increment;
        }
    }

    /** {@code n} received bytes were consumed: given back once half a window is due. */
    private void consumed(Http2ClientStream s, int n) {
        if (n <= 0 || phase != Phase.OPEN) {
            return;
        }
        unacknowledged += n;
        if (unacknowledged >= CONNECTION_WINDOW / 2) {
            codec.windowUpdate(0, unacknowledged);
            receiveWindow += unacknowledged;
            unacknowledged = 0;
        }
        if (s != null && !s.remoteEnded) {
            s.unacknowledged += n;
            if (s.unacknowledged >= STREAM_WINDOW / 2) {
                codec.windowUpdate(s.id, s.unacknowledged);
                s.receiveWindow += s.unacknowledged;
                s.unacknowledged = 0;
            }
        }
    }

    private void reset(Http2ClientStream s, ErrorCode code) {
        if (phase == Phase.OPEN) {
            codec.rstStream(s.id, code);
        }
        if (streams.get(s.id) == s) {
            remove(s);
        }
    }

    /** A stream error: the stream is reset and its request fails; the connection goes on. */
    private void resetStream(int streamId, ErrorCode code, Reason reason, String detail) {
        Http2ClientStream s = streams.get(streamId);
        if (s == null) {
            if (phase == Phase.OPEN && streamId != 0) {
                codec.rstStream(streamId, code);
            }
            return;
        }
        reset(s, code);
        failStream(s, reason, detail, null);
    }

    private void failStream(Http2ClientStream s, Reason reason, String detail, Throwable cause) {
        if (streams.get(s.id) == s) {
            remove(s);
        }
        fail(s.call, reason, detail, cause);
    }

    /** A connection error: GOAWAY, and every request pending fails. */
    private void connectionError(ErrorCode code, String message) {
        log.debug("HTTP/2 connection to {} failed ({}): {}", authority, code, message);
        String detail = "HTTP/2 connection error " + code + ": " + message;
        goAway(code, message);
        failOpen(Reason.MALFORMED_RESPONSE, detail, null);
    }

    /** Ends the connection: GOAWAY written, then closed. */
    private void goAway(ErrorCode code, String debug) {
        if (phase == Phase.OPEN) {
            codec.goAway(0, code, debug);
            phase = Phase.ENDING;
            endingSince = clock.getAsLong();
        }
    }

    /** The open connection ended: every stream fails ({@link Reason#NOT_SENT} if none of its bytes left), the waiting requests too. */
    private void failOpen(Reason reason, String detail, Throwable cause) {
        closing = true;
        goneAway = true;
        for (Http2ClientStream s : new ArrayList<>(streams.values())) {
            remove(s);
            if (reason == Reason.CONNECTION_CLOSED && sent <= s.call.firstByte) {
                fail(s.call, Reason.NOT_SENT, "not sent: " + detail, cause);
            } else {
                fail(s.call, reason, detail, cause);
            }
        }
        failEverything(reason == Reason.CONNECTION_CLOSED ? Reason.NOT_SENT : reason, (reason == Reason.CONNECTION_CLOSED ? "not sent: " : "") + detail, cause);
    }

    /** Every waiting request fails with {@code reason}, and the connection is over. */
    private void failEverything(Reason reason, String detail, Throwable cause) {
        closing = true;
        goneAway = true;
        for (ClientCall call; (call = waiting.poll()) != null; ) {
            fail(call, reason, detail, cause);
        }
        for (Http2ClientStream s : new ArrayList<>(streams.values())) {
            remove(s);
            fail(s.call, reason, detail, cause);
        }
        if (phase != Phase.ENDING) {
            phase = Phase.CLOSED;
            codec.clear();
        }
    }

    private void fail(ClientCall call, Reason reason, String detail, Throwable cause) {
        outcomes.fail(call, failure(call, reason, detail, cause));
    }

    private ClientException failure(ClientCall call, Reason reason, String detail, Throwable cause) {
        return new ClientException(reason, authority, call.request.describe(), detail, cause);
    }

    private void settle() {
        outcomes.settle(driver, phase == Phase.OPEN);
    }
}
