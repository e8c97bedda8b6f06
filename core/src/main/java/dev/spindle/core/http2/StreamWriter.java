// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.Method;
import dev.spindle.core.compress.ResponseCoding;
import dev.spindle.core.exchange.EndRecord;
import dev.spindle.core.bytes.HttpDate;
import dev.spindle.core.exchange.ResponseState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The output side of an HTTP/2 connection: a response becomes a HEADERS block, then DATA frames
 * sent round-robin (a frame per stream per turn) while the connection's and the stream's send
 * windows and the output's high-water mark allow. Streamed bodies are read a chunk at a time as
 * they are sent; one whose producer has nothing yet waits for the wakeup instead of a stream's turn.
 */
final class StreamWriter {
    private static final Logger log = LoggerFactory.getLogger(StreamWriter.class);
    private static final int MAX_WINDOW = Integer.MAX_VALUE;
    private static final byte[] SERVER = bytes("spindle");
    private static final byte[] SERVER_NAME = bytes("server");
    private static final byte[] DATE = bytes("date");
    private static final byte[] CONTENT_TYPE = bytes("content-type");
    private static final byte[] VARY = bytes("vary");
    private static final byte[] ACCEPT_ENCODING = bytes(ResponseCoding.ACCEPT_ENCODING);
    /** The content-length values of small bodies, made once: a response's length costs no allocation. */
    private static final byte[][] DECIMALS = new byte[4096][];

    static {
        for (int i = 0; i < DECIMALS.length; i++) {
            DECIMALS[i] = bytes(Integer.toString(i));
        }
    }

    private final Http2Connection connection;
    private final Http2Guards guards;
    private final WireBuffer out;
    private final HpackEncoder encoder;
    private final Executor blockingExecutor;
    private final Runnable wakeup;
    private final int highWater;
    /** Streams whose streamed response body waits for its producer: the wakeup queues them again. */
    private final ArrayList<Stream> producing = new ArrayList<>();
    /** Streams with response DATA waiting to be sent, in round-robin order. */
    private Stream queueHead;
    private Stream queueTail;
    /** The peer's window for what we send on the connection. */
    private long sendWindow = Http2Connection.DEFAULT_WINDOW;
    private int peerMaxFrameSize = 16_384;
    private String lastContentType;
    private byte[] lastContentTypeBytes;
    /** The connection was aborted: nothing more is encoded or sent. */
    private boolean stopped;

    StreamWriter(Http2Connection connection, Http2Guards guards, WireBuffer out, int headerTableSize,
            Executor blockingExecutor, Runnable wakeup, int highWater) {
        this.connection = connection;
        this.guards = guards;
        this.out = out;
        this.encoder = new HpackEncoder(headerTableSize);
        this.blockingExecutor = blockingExecutor;
        this.wakeup = wakeup;
        this.highWater = highWater;
    }

    /** Sends the response's HEADERS and queues its body, once per stream. */
    void encode(Stream s, ResponseState res) {
        if (s.answered || stopped) {
            return;
        }
        boolean head = s.request.method == Method.HEAD;
        byte[] body = null;
        int offset = 0;
        int length = 0;
        if (res.bodyArray != null) {
            body = res.bodyArray;
            offset = res.bodyOffset;
            length = res.bodyLength;
        } else if (res.bodyBuffer != null) {
            ByteBuffer b = res.bodyBuffer;
            length = b.remaining();
            if (b.hasArray()) {
                body = b.array();
                offset = b.arrayOffset() + b.position();
            } else {
                body = new byte[length];
                b.duplicate().get(body);
            }
        } else if (res.bodyString != null) {
            body = res.bodyText();
            length = body.length;
        }
        boolean noContent = res.status == 204 || res.status == 304;
        boolean streamed = res.api.isStreamed();
        // taken before a HEAD answer's stream is closed: its length is GET's (none when unknown)
        long contentLength = streamed ? res.streamLength : length;
        CompletableFuture<Long> sent = streamed ? res.takeSent() : null;
        if (streamed && (head || noContent)) {
            res.closeStreamedBody();
            if (sent != null) {
                sent.complete(0L);
            }
            streamed = false;
        }
        boolean endStream = head || noContent || length == 0 && !streamed;
        headers(s, res, noContent ? -1 : contentLength, endStream);
        s.answered = true;
        if (s.end != null) {
            s.end.responseBytes = head || noContent ? 0 : contentLength;
        }
        if (body != s.bytes) {
            // answered, and not from the request's own array: a response held back by the peer's window
            // must not keep the request's fields too (128 streams of 32 KiB header lists)
            s.releaseRequestBytes();
        }
        if (endStream) {
            sentEnd(s);
        } else if (streamed) {
            s.source = OutgoingData.of(res, blockingExecutor, wakeup);
            s.sent = sent;
            enqueue(s);
        } else {
            s.out = body;
            s.outPos = offset;
            s.outEnd = offset + length;
            enqueue(s);
        }
    }

    /** A response's HEADERS block: the status, the server's fields, a content-length unless it is -1, the response's fields. */
    private void headers(Stream s, ResponseState res, long contentLength, boolean endStream) {
        int start = Frames.headersStart(out, s.id, endStream);
        encoder.beginBlock(out);
        encoder.status(res.status, out);
        encoder.headerConstant(SERVER_NAME, SERVER, out);
        encoder.headerConstant(DATE, HttpDate.value(), out);
        if (res.contentType != null) {
            encoder.headerConstant(CONTENT_TYPE, contentType(res.contentType), out);
        }
        if (contentLength >= 0) {
            encoder.contentLength(decimal(contentLength), out);
        }
        for (int i = 0; i < res.headerCount; i++) {
            String given = res.headerNames[i];
            if (given == ResponseCoding.VARY && res.headerValues[i] == ResponseCoding.ACCEPT_ENCODING) {
                // compression's own fields, the same on every answer: found in the table by identity
                encoder.headerConstant(VARY, ACCEPT_ENCODING, out);
                continue;
            }
            String name = given == ResponseCoding.CONTENT_ENCODING ? "content-encoding" : given.toLowerCase(Locale.ROOT);
            if (!connectionSpecific(name)) {
                encoder.header(name, res.headerValues[i], out);
            }
        }
        Frames.headersEnd(out, start, peerMaxFrameSize);
    }

    /**
     * Answers an extended CONNECT that opened a WebSocket (RFC 8441 5): HEADERS with the status and
     * fields and no END_STREAM; the stream's DATA then come from {@code source} until it ends.
     */
    void encodeTunnel(Stream s, ResponseState res, OutgoingData source) {
        if (s.answered || stopped) {
            return;
        }
        headers(s, res, -1, false);
        s.answered = true;
        s.releaseRequestBytes();
        s.source = source;
        enqueue(s);
    }

    /** Sends an interim response (1xx): a HEADERS frame with only its status, before the final one. */
    void interim(Stream s, int status) {
        if (s.answered || stopped) {
            return;
        }
        int start = Frames.headersStart(out, s.id, false);
        encoder.beginBlock(out);
        encoder.status(status, out);
        Frames.headersEnd(out, start, peerMaxFrameSize);
    }

    /** Sends DATA round-robin, a frame per stream per turn, while the windows and the high-water mark allow. */
    void flush() {
        if (stopped) {
            return;
        }
        while (queueHead != null && sendWindow > 0 && out.pending() < highWater) {
            Stream s = queueHead;
            queueHead = s.nextQueued;
            if (queueHead == null) {
                queueTail = null;
            }
            s.nextQueued = null;
            s.queued = false;
            if (s.out == null || s.outPos == s.outEnd) {
                if (s.source == null || !refill(s)) {
                    continue;
                }
            }
            int remaining = s.outEnd - s.outPos;
            int n = (int) Math.min(Math.min(remaining, peerMaxFrameSize), Math.min(sendWindow, s.sendWindow));
            if (n <= 0) {
                // blocked on the stream's window: its WINDOW_UPDATE queues it again
                continue;
            }
            boolean last = n == remaining && s.source == null;
            Frames.dataHeader(out, n, s.id, last);
            out.put(s.out, s.outPos, n);
            s.outPos += n;
            sendWindow -= n;
            s.sendWindow -= n;
            if (last) {
                s.out = null;
                sentEnd(s);
            } else {
                enqueue(s);
            }
        }
    }

    /**
     * Reads the next part of a streamed body into the stream's chunk.
     *
     * @return true when there is something to send; false when the producer has nothing yet (the
     *         wakeup queues the stream again), or the body ended (END_STREAM sent) or failed (reset)
     */
    private boolean refill(Stream s) {
        int size = s.source.chunkSize();
        if (s.chunk == null || s.chunk.length < size) {
            s.chunk = new byte[size];
        }
        int n;
        try {
            n = s.source.read(s.chunk);
        } catch (IOException | RuntimeException e) {
            log.debug("streamed response body of stream {} failed: {}", s.id, e.toString());
            ErrorCode code = s.source.failureCode();
            endSource(s, e);
            connection.reset(s.id, code, false);
            return false;
        }
        if (n == OutgoingData.WAIT) {
            if (!s.source.wakesItself()) {
                producing.add(s);
            }
            return false;
        }
        if (n == OutgoingData.END) {
            endSource(s, null);
            Frames.dataHeader(out, 0, s.id, true);
            sentEnd(s);
            return false;
        }
        s.out = s.chunk;
        s.outPos = 0;
        s.outEnd = n;
        return true;
    }

    /** The streamed body is over: its source is released and {@code Response.sent()} completes. */
    private void endSource(Stream s, Throwable failure) {
        OutgoingData source = s.source;
        s.source = null;
        source.close();
        if (s.end != null) {
            s.end.responseBytes = failure == null ? source.sent() : -1;
        }
        if (s.sent != null) {
            if (failure == null) {
                s.sent.complete(source.sent());
            } else {
                s.sent.completeExceptionally(failure);
            }
            s.sent = null;
        }
    }

    /** END_STREAM went out on {@code s}. */
    private void sentEnd(Stream s) {
        guards.answered();
        if (s.end != null) {
            EndRecord end = s.end;
            s.end = null;
            end.end(ExchangeEnd.Outcome.COMPLETE);
        }
        if (s.remoteClosed()) {
            connection.close(s);
            return;
        }
        s.state = Stream.State.HALF_CLOSED_LOCAL;
        // RFC 9113 8.1: answered before the request ended, the rest of it is not wanted
        Frames.rstStream(out, s.id, ErrorCode.NO_ERROR);
        guards.resetSent(s.id);
        connection.close(s);
    }

    private void enqueue(Stream s) {
        if (s.queued) {
            return;
        }
        s.queued = true;
        s.nextQueued = null;
        if (queueTail == null) {
            queueHead = s;
        } else {
            queueTail.nextQueued = s;
        }
        queueTail = s;
    }

    /** The stream's send window grew: a body waiting for it gets its turn again. */
    void windowGrew(Stream s) {
        if (s.out != null || s.source != null) {
            enqueue(s);
        }
    }

    /** Queues again the streams whose producers had nothing: the wakeup says they may have now. */
    void requeueProducing() {
        for (Stream s : producing) {
            enqueue(s);
        }
        producing.clear();
    }

    /**
     * At a tick: a waiting source whose heartbeat is due gets its turn, and while the connection
     * goes away each is asked to end once what it queued is sent.
     */
    void tickSources(long now, boolean goingAway) {
        for (int i = producing.size() - 1; i >= 0; i--) {
            Stream s = producing.get(i);
            if (goingAway) {
                s.source.drain();
            }
            if (goingAway || s.source.due() - now <= 0) {
                producing.remove(i);
                enqueue(s);
            }
        }
    }

    /** Whether no streamed body waits for its producer. */
    boolean noProducers() {
        return producing.isEmpty();
    }

    /** Whether a stream waits for its turn to send DATA. */
    boolean hasQueued() {
        return queueHead != null;
    }

    /** Forgets every queued stream (the connection is ending). */
    void clearQueue() {
        queueHead = null;
        queueTail = null;
    }

    /** Whether nothing more is encoded or sent. */
    boolean stopped() {
        return stopped;
    }

    /** Nothing more is encoded or sent (the connection was aborted). */
    void stop() {
        stopped = true;
        clearQueue();
    }

    /** The stream closed: its body is not sent, a streamed one is released and fails its {@code sent()}. */
    void drop(Stream s) {
        s.out = null;
        if (s.source != null) {
            endSource(s, new IOException("the stream was reset before its body was sent"));
        }
        producing.remove(s);
    }

    /** A WINDOW_UPDATE on the connection. */
    void connectionWindowUpdate(int increment) throws Http2Exception {
        sendWindow += increment;
        if (sendWindow > MAX_WINDOW) {
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "WINDOW_UPDATE takes the connection's window past 2^31-1");
        }
    }

    /** A WINDOW_UPDATE on a stream. */
    void streamWindowUpdate(Stream s, int increment) throws Http2Exception {
        s.sendWindow += increment;
        if (s.sendWindow > MAX_WINDOW) {
            throw Http2Exception.stream(s.id, ErrorCode.FLOW_CONTROL_ERROR, "WINDOW_UPDATE takes the stream's window past 2^31-1");
        }
        windowGrew(s);
    }

    /** SETTINGS_INITIAL_WINDOW_SIZE changed by {@code delta}: every open stream's window moves with it (RFC 9113 6.9.2). */
    void initialWindowChanged(StreamMap streams, long delta) throws Http2Exception {
        Http2Exception[] overflow = new Http2Exception[1];
        streams.forEach(s -> {
            s.sendWindow += delta;
            if (s.sendWindow > MAX_WINDOW) {
                overflow[0] = Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR,
                        "SETTINGS_INITIAL_WINDOW_SIZE takes a stream's window past 2^31-1");
            } else if (delta > 0) {
                windowGrew(s);
            }
        });
        if (overflow[0] != null) {
            throw overflow[0];
        }
    }

    void peerMaxFrameSize(int size) {
        peerMaxFrameSize = size;
    }

    void peerMaxTableSize(long size) {
        encoder.peerMaxTableSize(size);
    }

    private static boolean connectionSpecific(String name) {
        return switch (name) {
            case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade" -> true;
            default -> false;
        };
    }

    /** The last content type's bytes: most responses of a connection share one. */
    private byte[] contentType(String type) {
        if (!type.equals(lastContentType)) {
            lastContentType = type;
            lastContentTypeBytes = type.getBytes(StandardCharsets.ISO_8859_1);
        }
        return lastContentTypeBytes;
    }

    private static byte[] decimal(long n) {
        return n < DECIMALS.length ? DECIMALS[(int) n] : bytes(Long.toString(n));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
