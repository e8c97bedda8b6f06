// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.exchange.ResponseState;
import dev.spindle.core.spi.Next;
import dev.spindle.core.websocket.WebSocketAccept;
import dev.spindle.core.websocket.WebSocketConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;

/**
 * The WebSockets of an HTTP/2 connection (RFC 8441): a stream whose extended CONNECT a WebSocket
 * route accepted carries one. Its engine is the same sans-I/O {@link WebSocketConnection} an
 * HTTP/1.1 socket has, driven here as a strategy drives a connection: the stream's DATA are its
 * input, its output goes out as the stream's DATA within the send windows, and the end of either
 * side is END_STREAM (a failure, RST_STREAM). The stream's receive window is given back only while
 * the engine takes input, so a client cannot outrun a socket that is behind; the connection's
 * window, shared with other streams, is given back at once.
 */
final class WebSocketStreams {
    private static final byte[] NONE = new byte[0];

    private final Http2Connection connection;
    private final ServerConfig config;
    private final StreamWriter writer;
    private final Http2Guards guards;
    private final Runnable wakeup;
    private final ArrayList<Stream> open = new ArrayList<>();

    WebSocketStreams(Http2Connection connection, ServerConfig config, StreamWriter writer, Http2Guards guards, Runnable wakeup) {
        this.connection = connection;
        this.config = config;
        this.writer = writer;
        this.guards = guards;
        this.wakeup = wakeup;
    }

    /** Answers 200 with what the handshake agreed (RFC 8441 5) and opens the socket on {@code s}. */
    void open(Stream s, ResponseState res, WebSocketAccept accept) {
        res.status = 200;
        if (accept.subprotocol != null) {
            res.api.header("sec-websocket-protocol", accept.subprotocol);
        }
        if (accept.extensions() != null) {
            res.api.header("sec-websocket-extensions", accept.extensions());
        }
        // the socket's request outlives the stream's arrays, which its answer lets go
        WebSocketConnection ws = new WebSocketConnection(accept, s.request.detach().settled(), config, wakeup, NONE);
        s.webSocket = ws;
        open.add(s);
        writer.encodeTunnel(s, res, new SocketData(s));
        after(s, ws.open(NONE));
    }

    /** DATA on a socket's stream: all of it is read; END_STREAM is the client's end of input (as a TCP FIN). */
    void data(Stream s, ByteBuffer data, boolean endStream) {
        int n = data.remaining();
        WebSocketConnection ws = s.webSocket;
        guards.consumed(null, n);
        s.webSocketOwed += n;
        Next next = ws.received(data);
        if (endStream) {
            next = ws.endOfInput();
        }
        after(s, next);
    }

    /** The wakeup: sends queued from other threads, a blocking endpoint caught up. */
    void resume() {
        for (int i = open.size() - 1; i >= 0; i--) {
            Stream s = open.get(i);
            after(s, s.webSocket.resume());
        }
    }

    /** The sockets' own time: pings, idle and close timeouts, their write timeout. */
    void tick(long now) {
        for (int i = open.size() - 1; i >= 0; i--) {
            Stream s = open.get(i);
            after(s, s.webSocket.tick(now));
        }
    }

    /** The server drains: every socket closes with 1001 behind what it has queued. */
    void drain() {
        for (Stream s : open) {
            s.webSocket.drain();
        }
    }

    /** Whether a socket is open: other threads may send on it at any time. */
    boolean any() {
        return !open.isEmpty();
    }

    /** The stream closed (its end sent, a reset, the connection gone): the socket is closed too. */
    void drop(Stream s) {
        WebSocketConnection ws = s.webSocket;
        if (ws != null && open.remove(s)) {
            ws.closed();
        }
    }

    /** Acts on what the socket wants next: a socket that gave up is reset, one with output (or ending) gets its turn to send. */
    private void after(Stream s, Next next) {
        WebSocketConnection ws = s.webSocket;
        if (ws == null || s.state == Stream.State.CLOSED) {
            return;
        }
        if (ws.aborted()) {
            connection.reset(s.id, ErrorCode.CANCEL, false);
            return;
        }
        giveBack(s, next);
        if (ws.hasOutbound() || ws.outputFinished() || next == Next.CLOSE) {
            writer.windowGrew(s);
        }
    }

    /** What the socket took while it was behind goes back to the stream's window once it reads again. */
    private void giveBack(Stream s, Next next) {
        if (next.reads() && s.webSocketOwed > 0) {
            guards.streamConsumed(s, s.webSocketOwed);
            s.webSocketOwed = 0;
        }
    }

    /** A socket's output as its stream's DATA: the engine's frames, then END_STREAM once its closing is done. */
    private final class SocketData extends OutgoingData {
        private final Stream stream;

        SocketData(Stream stream) {
            super(-1);
            this.stream = stream;
        }

        @Override
        int readSome(byte[] dst) throws IOException {
            WebSocketConnection ws = stream.webSocket;
            if (ws == null || ws.aborted()) {
                throw new IOException("the WebSocket was aborted");
            }
            ByteBuffer pending = ws.outbound();
            int n = Math.min(dst.length, pending.remaining());
            if (n > 0) {
                pending.get(dst, 0, n);
                Next next = ws.written(n);
                if (ws.aborted()) {
                    throw new IOException("the WebSocket was aborted");
                }
                giveBack(stream, next);
                return n;
            }
            return ws.outputFinished() || ws.next() == Next.CLOSE ? END : WAIT;
        }

        @Override
        int chunkSize() {
            WebSocketConnection ws = stream.webSocket;
            int pending = ws == null ? 0 : ws.outbound().remaining();
            // an idle socket keeps a small chunk; one that sends much, up to a frame's
            return Math.min(CHUNK, Math.max(256, Integer.highestOneBit(Math.max(1, pending - 1)) << 1));
        }

        @Override
        boolean wakesItself() {
            return true;
        }

        @Override
        ErrorCode failureCode() {
            return ErrorCode.CANCEL;
        }

        @Override
        void close() {
        }
    }
}
