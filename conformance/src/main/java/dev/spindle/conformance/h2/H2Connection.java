// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.SocketFactory;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A raw HTTP/2 client for conformance cases: it sends any frame, malformed ones included, and reads
 * the server's frames with a deadline on every wait, so a case never hangs. Reading keeps the
 * connection alive as a real client would: it acknowledges the server's SETTINGS and PINGs, returns
 * the flow-control window of DATA it received, tracks the windows it may send in, and decodes every
 * header block (Netty's HPACK decoder, so the client's decoding is not the server's) in order, so
 * the dynamic table stays in step whatever a case skips. The first two can be turned off for the
 * cases about them.
 *
 * <p>Not thread-safe: one case, one thread.
 */
public final class H2Connection implements AutoCloseable {
    /** The client connection preface, RFC 9113 3.4. */
    public static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The initial flow-control window of RFC 9113 6.9.2. */
    public static final int DEFAULT_WINDOW = 65_535;
    /** The largest frame payload this client accepts: the RFC's initial SETTINGS_MAX_FRAME_SIZE, which it never raises. */
    public static final int MAX_FRAME_SIZE = 16_384;
    private static final int LOG_SIZE = 40;
    private static final Frame TIMED_OUT = new Frame(-1, 0, 0, new byte[0], null);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String authority;
    private final int timeoutMillis;
    private final Deque<Frame> backlog = new ArrayDeque<>();
    private final Deque<Frame> log = new ArrayDeque<>();
    private final Map<Integer, Long> serverSettings = new HashMap<>();
    private final Map<Integer, Long> streamSendWindows = new HashMap<>();
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(true);
    private ByteArrayOutputStream block;
    private int blockStream;
    private int blockFlags;
    private int blockType;
    private boolean ackSettings = true;
    private boolean replenish = true;
    private boolean eof;
    private int settingsAcks;
    private Frame firstFrame;
    private Frame lastGoAway;
    private long connectionSendWindow = DEFAULT_WINDOW;
    private long serverInitialWindow = DEFAULT_WINDOW;

    /**
     * A connection on a connected socket; nothing is sent yet.
     *
     * @param connected the socket, connected (a TLS one with its handshake done)
     * @param authority what {@code :authority} says
     * @param timeoutMillis how long any wait for the server may last
     * @throws IOException if the socket cannot be set up
     */
    public H2Connection(Socket connected, String authority, int timeoutMillis) throws IOException {
        this.socket = connected;
        this.authority = authority;
        this.timeoutMillis = timeoutMillis;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(timeoutMillis);
        in = new BufferedInputStream(socket.getInputStream(), 65_536);
        out = socket.getOutputStream();
    }

    /**
     * Connects to {@code host:port} with a socket from {@code sockets}; over TLS it offers only
     * {@code h2} by ALPN and fails unless the server chose it.
     *
     * @param host the server's address
     * @param port its port
     * @param sockets plain or TLS sockets
     * @param timeoutMillis how long the connect and any wait for the server may last
     * @return the connection, nothing sent yet
     * @throws IOException if it cannot connect or the TLS handshake fails
     */
    public static H2Connection open(String host, int port, SocketFactory sockets, int timeoutMillis) throws IOException {
        Socket socket = sockets.createSocket();
        try {
            if (socket instanceof SSLSocket tls) {
                SSLParameters parameters = tls.getSSLParameters();
                parameters.setApplicationProtocols(new String[] {"h2"});
                tls.setSSLParameters(parameters);
            }
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            if (socket instanceof SSLSocket tls) {
                tls.setSoTimeout(timeoutMillis);
                tls.startHandshake();
                if (!"h2".equals(tls.getApplicationProtocol())) {
                    throw new AssertionError("ALPN offered only h2 and the server chose '" + tls.getApplicationProtocol() + "'");
                }
            }
            String name = host.contains(":") ? "[" + host + "]" : host;
            return new H2Connection(socket, name + ":" + port, timeoutMillis);
        } catch (IOException | RuntimeException | Error e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Whether the server's SETTINGS are acknowledged as they arrive (on by default).
     *
     * @param on whether to acknowledge
     * @return this
     */
    public H2Connection ackSettings(boolean on) {
        ackSettings = on;
        return this;
    }

    /**
     * Whether DATA received is answered with WINDOW_UPDATEs for its length, on the stream and the
     * connection (on by default); off, the server's window only shrinks.
     *
     * @param on whether to return the window
     * @return this
     */
    public H2Connection replenishWindows(boolean on) {
        replenish = on;
        return this;
    }

    /**
     * The scheme requests on this connection carry.
     *
     * @return {@code https} over TLS, else {@code http}
     */
    public String scheme() {
        return socket instanceof SSLSocket ? "https" : "http";
    }

    // ---- sending

    /**
     * Sends raw bytes as they are.
     *
     * @param bytes the bytes
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /**
     * Sends one frame as given: any type, flags, stream field (the reserved bit included) and payload.
     *
     * @param type the type
     * @param flags the flags
     * @param streamField the 32-bit stream field, reserved bit and all
     * @param payload the payload; its length goes in the header whatever it is
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection writeFrame(int type, int flags, int streamField, byte[] payload) throws IOException {
        byte[] frame = new byte[9 + payload.length];
        frame[0] = (byte) (payload.length >>> 16);
        frame[1] = (byte) (payload.length >>> 8);
        frame[2] = (byte) payload.length;
        frame[3] = (byte) type;
        frame[4] = (byte) flags;
        ByteBuffer.wrap(frame, 5, 4).putInt(streamField);
        System.arraycopy(payload, 0, frame, 9, payload.length);
        return writeRaw(frame);
    }

    /**
     * Sends the client connection preface.
     *
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection sendPreface() throws IOException {
        return writeRaw(PREFACE);
    }

    /**
     * Sends a SETTINGS frame.
     *
     * @param idValuePairs identifier, value, identifier, value...
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection settings(long... idValuePairs) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(idValuePairs.length / 2 * 6);
        for (int i = 0; i + 1 < idValuePairs.length; i += 2) {
            b.putShort((short) idValuePairs[i]).putInt((int) idValuePairs[i + 1]);
        }
        return writeFrame(Frame.SETTINGS, 0, 0, b.array());
    }

    /**
     * Sends the preface and a SETTINGS frame, then waits for the server's SETTINGS and the
     * acknowledgement of its own; other frames read meanwhile wait for the case.
     *
     * @param idValuePairs the client's settings: identifier, value...
     * @return this
     * @throws IOException if a write fails
     */
    public H2Connection handshake(long... idValuePairs) throws IOException {
        sendPreface().settings(idValuePairs);
        long deadline = deadline();
        boolean remote = false;
        int acksBefore = settingsAcks;
        List<Frame> others = new ArrayList<>();
        while (!remote || settingsAcks == acksBefore) {
            Frame f = poll(deadline);
            if (f == TIMED_OUT || f == null) {
                throw new AssertionError("handshake: " + (f == null ? "the server closed" : "no SETTINGS" + (remote ? " ACK" : "")
                        + " within " + timeoutMillis + " ms") + "; received " + log);
            }
            if (f.type() == Frame.SETTINGS && !f.has(Frame.ACK)) {
                remote = true;
            } else if (f.type() != Frame.SETTINGS) {
                others.add(f);
            }
        }
        backlog.addAll(others);
        return this;
    }

    /**
     * The first frame the server sent on this connection.
     *
     * @return the frame, or null before any arrived
     */
    public Frame firstFrame() {
        return firstFrame;
    }

    /**
     * A setting the server sent, the latest value.
     *
     * @param id the identifier
     * @return its value, or null if the server has not sent it
     */
    public Long serverSetting(int id) {
        return serverSettings.get(id);
    }

    /**
     * Sends a SETTINGS acknowledgement.
     *
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection settingsAck() throws IOException {
        return writeFrame(Frame.SETTINGS, Frame.ACK, 0, new byte[0]);
    }

    /**
     * The pseudo-header fields of a request for {@code path}, in their usual order; the list can be changed.
     *
     * @param method the method
     * @param path the path
     * @return {@code :method}, {@code :scheme}, {@code :path}, {@code :authority}
     */
    public List<Header> requestFields(String method, String path) {
        return new ArrayList<>(List.of(new Header(":method", method), new Header(":scheme", scheme()),
                new Header(":path", path), new Header(":authority", authority)));
    }

    /**
     * Sends a HEADERS frame with END_HEADERS carrying {@code fields}, literally encoded.
     *
     * @param stream the stream
     * @param endStream whether END_STREAM is set
     * @param fields the fields
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection headers(int stream, boolean endStream, List<Header> fields) throws IOException {
        return headersBlock(stream, Frame.END_HEADERS | (endStream ? Frame.END_STREAM : 0), HpackLiterals.encode(fields));
    }

    /**
     * Sends a request's HEADERS: the pseudo-header fields for {@code method} and {@code path}, then {@code extra}.
     *
     * @param stream the stream
     * @param method the method
     * @param path the path
     * @param endStream whether the request ends here (no body)
     * @param extra more fields after the pseudo-header fields
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection request(int stream, String method, String path, boolean endStream, Header... extra) throws IOException {
        List<Header> fields = requestFields(method, path);
        fields.addAll(Arrays.asList(extra));
        return headers(stream, endStream, fields);
    }

    /**
     * Sends a HEADERS frame with a header block given as bytes.
     *
     * @param stream the stream
     * @param flags the flags (END_HEADERS, END_STREAM...)
     * @param block the block fragment
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection headersBlock(int stream, int flags, byte[] block) throws IOException {
        return writeFrame(Frame.HEADERS, flags, stream, block);
    }

    /**
     * Sends a CONTINUATION frame.
     *
     * @param stream the stream
     * @param endHeaders whether END_HEADERS is set
     * @param block the block fragment
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection continuation(int stream, boolean endHeaders, byte[] block) throws IOException {
        return writeFrame(Frame.CONTINUATION, endHeaders ? Frame.END_HEADERS : 0, stream, block);
    }

    /**
     * Sends one DATA frame, whatever the windows say.
     *
     * @param stream the stream
     * @param data the payload
     * @param endStream whether END_STREAM is set
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection data(int stream, byte[] data, boolean endStream) throws IOException {
        consumeSendWindow(stream, data.length);
        return writeFrame(Frame.DATA, endStream ? Frame.END_STREAM : 0, stream, data);
    }

    /**
     * Sends {@code body} as DATA frames no larger than the server's SETTINGS_MAX_FRAME_SIZE, waiting
     * for WINDOW_UPDATEs whenever the stream's or the connection's window is spent.
     *
     * @param stream the stream
     * @param body the body
     * @param endStream whether the last frame ends the stream
     * @return this
     * @throws IOException if a write fails
     */
    public H2Connection body(int stream, byte[] body, boolean endStream) throws IOException {
        int maxFrame = (int) Math.min(Integer.MAX_VALUE, serverSettings.getOrDefault(Frame.SETTINGS_MAX_FRAME_SIZE, (long) MAX_FRAME_SIZE));
        int sent = 0;
        List<Frame> others = new ArrayList<>();
        do {
            long deadline = deadline();
            while (sent < body.length && Math.min(connectionSendWindow, streamWindow(stream)) <= 0) {
                Frame f = poll(deadline);
                if (f == TIMED_OUT || f == null || f.type() == Frame.GOAWAY
                        || (f.type() == Frame.RST_STREAM && f.streamId() == stream)) {
                    throw new AssertionError("sending " + body.length + " bytes on stream " + stream + ", " + sent
                            + " sent: the window stayed closed (connection " + connectionSendWindow + ", stream "
                            + streamWindow(stream) + ")" + (f == null ? ", then the server closed" : f == TIMED_OUT ? "" : ", then " + f)
                            + "; received " + log);
                }
                others.add(f);
            }
            int n = (int) Math.min(Math.min(body.length - sent, maxFrame), Math.min(connectionSendWindow, streamWindow(stream)));
            data(stream, Arrays.copyOfRange(body, sent, sent + n), endStream && sent + n == body.length);
            sent += n;
        } while (sent < body.length);
        backlog.addAll(others);
        return this;
    }

    /**
     * Sends a PRIORITY frame.
     *
     * @param stream the stream
     * @param dependency the stream it depends on
     * @param exclusive the exclusive bit
     * @param weight the weight field, 0-255 (weight minus one)
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection priority(int stream, int dependency, boolean exclusive, int weight) throws IOException {
        return writeFrame(Frame.PRIORITY, 0, stream, prioritySpec(dependency, exclusive, weight));
    }

    /**
     * The five bytes of a priority specification (PRIORITY frame, HEADERS with PRIORITY).
     *
     * @param dependency the stream depended on
     * @param exclusive the exclusive bit
     * @param weight the weight field
     * @return the bytes
     */
    public static byte[] prioritySpec(int dependency, boolean exclusive, int weight) {
        return ByteBuffer.allocate(5).putInt(dependency | (exclusive ? 0x80000000 : 0)).put((byte) weight).array();
    }

    /**
     * Sends a RST_STREAM frame.
     *
     * @param stream the stream
     * @param code the error code
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection rstStream(int stream, ErrorCode code) throws IOException {
        return writeFrame(Frame.RST_STREAM, 0, stream, ByteBuffer.allocate(4).putInt(code.code()).array());
    }

    /**
     * Sends a PING frame.
     *
     * @param ack whether ACK is set
     * @param opaque the 8 bytes
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection ping(boolean ack, byte[] opaque) throws IOException {
        return writeFrame(Frame.PING, ack ? Frame.ACK : 0, 0, opaque);
    }

    /**
     * Sends a GOAWAY frame.
     *
     * @param lastStream the last stream identifier
     * @param code the error code
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection goAway(int lastStream, ErrorCode code) throws IOException {
        return writeFrame(Frame.GOAWAY, 0, 0, ByteBuffer.allocate(8).putInt(lastStream).putInt(code.code()).array());
    }

    /**
     * Sends a WINDOW_UPDATE frame.
     *
     * @param stream the stream, 0 for the connection
     * @param increment the increment (any 31-bit value, 0 included)
     * @return this
     * @throws IOException if the write fails
     */
    public H2Connection windowUpdate(int stream, int increment) throws IOException {
        return writeFrame(Frame.WINDOW_UPDATE, 0, stream, ByteBuffer.allocate(4).putInt(increment).array());
    }

    // ---- receiving

    /**
     * The GOAWAY an expectation accepted last.
     *
     * @return the frame, or null if none was
     */
    public Frame lastGoAway() {
        return lastGoAway;
    }

    /**
     * Waits for the server's acknowledgement of a SETTINGS frame; other frames wait for the case.
     */
    public void awaitSettingsAck() {
        long deadline = deadline();
        List<Frame> others = new ArrayList<>();
        while (true) {
            Frame f = poll(deadline);
            if (f == TIMED_OUT || f == null || f.type() == Frame.GOAWAY) {
                throw new AssertionError("no SETTINGS ACK: " + (f == null ? "the server closed" : f == TIMED_OUT
                        ? "nothing within " + timeoutMillis + " ms" : f.toString()) + "; received " + log);
            }
            if (f.type() == Frame.SETTINGS && f.has(Frame.ACK)) {
                backlog.addAll(others);
                return;
            }
            others.add(f);
        }
    }

    /**
     * Reads raw bytes until the server closes the connection, for what is not HTTP/2 frames (an
     * HTTP/1.1 answer to a bad preface, say).
     *
     * @return everything read
     * @throws AssertionError if the connection stays open past the timeout
     */
    public byte[] readUntilClose() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        long deadline = deadline();
        try {
            while (true) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new SocketTimeoutException();
                }
                socket.setSoTimeout((int) left);
                int n = in.read(buffer);
                if (n < 0) {
                    eof = true;
                    return all.toByteArray();
                }
                all.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection stayed open " + timeoutMillis + " ms; read "
                    + new String(all.toByteArray(), StandardCharsets.ISO_8859_1), e);
        } catch (IOException e) {
            eof = true;
            return all.toByteArray();
        }
    }

    /**
     * The next frame from the server, waiting at most the connection's timeout.
     *
     * @return the frame, or null once the server closed the connection
     * @throws AssertionError if none arrives in time
     */
    public Frame readFrame() {
        Frame f = poll(deadline());
        if (f == TIMED_OUT) {
            throw new AssertionError("no frame from the server within " + timeoutMillis + " ms; received " + log);
        }
        return f;
    }

    /**
     * What the server sent lately, oldest first, for failure messages.
     *
     * @return the last frames received
     */
    public List<Frame> recent() {
        return List.copyOf(log);
    }

    /**
     * Expects what {@code expected} accepts: reads until a GOAWAY, a RST_STREAM on its stream or the
     * close, ignoring other frames; after a GOAWAY the connection must close, after a stream error
     * it must still answer a PING.
     *
     * @param expected what is accepted
     * @throws IOException if a write fails
     * @throws AssertionError if the server does anything else
     */
    public void expect(Expectation expected) throws IOException {
        byte[] opaque = null;
        if (expected.ignoredAccepted()) {
            // a PING after the frame: its ACK says the frame was ignored; an error would come before it
            opaque = randomOpaque();
            pingIfOpen(opaque);
        }
        awaitErrorOr(expected, opaque);
    }

    /** Reads until the expected error; with {@code pingOpaque}, the PING's ACK ends the wait too. */
    private void awaitErrorOr(Expectation expected, byte[] pingOpaque) throws IOException {
        long deadline = deadline();
        while (true) {
            Frame f = poll(deadline);
            if (f == TIMED_OUT) {
                throw new AssertionError("expected " + expected + " but nothing came within " + timeoutMillis + " ms; received " + log);
            }
            if (f == null) {
                if (expected.closeAccepted()) {
                    return;
                }
                throw new AssertionError("expected " + expected + " but the server closed the connection without a GOAWAY; received " + log);
            }
            if (pingOpaque != null && f.type() == Frame.PING && f.has(Frame.ACK) && Arrays.equals(f.payload(), pingOpaque)) {
                return;
            }
            if (f.type() == Frame.GOAWAY) {
                ErrorCode code = ErrorCode.of(f.errorCode());
                if (!expected.connectionCodes().contains(code)) {
                    throw new AssertionError("expected " + expected + " but got " + f + "; received " + log);
                }
                lastGoAway = f;
                awaitClose("after " + f);
                return;
            }
            if (f.type() == Frame.RST_STREAM && f.streamId() == expected.stream() && !expected.streamCodes().isEmpty()) {
                if (!expected.streamCodes().contains(ErrorCode.of(f.errorCode()))) {
                    throw new AssertionError("expected " + expected + " but got " + f + "; received " + log);
                }
                expectPingAnswered();
                return;
            }
        }
    }

    /**
     * Expects a connection error: GOAWAY with one of {@code codes}, then the close.
     *
     * @param codes the codes accepted
     * @throws IOException if a write fails
     */
    public void expectConnectionError(ErrorCode... codes) throws IOException {
        expect(Expectation.connectionError(codes));
    }

    /**
     * Expects a stream error: RST_STREAM on {@code stream} with one of {@code codes}; the connection
     * must still answer a PING afterwards.
     *
     * @param stream the stream
     * @param codes the codes accepted
     * @throws IOException if a write fails
     */
    public void expectStreamError(int stream, ErrorCode... codes) throws IOException {
        expect(Expectation.streamError(stream, codes));
    }

    /**
     * Expects either a stream error on {@code stream} or a connection error, with one of {@code codes}.
     *
     * @param stream the stream
     * @param codes the codes accepted
     * @throws IOException if a write fails
     */
    public void expectGoAwayOrRst(int stream, ErrorCode... codes) throws IOException {
        expect(Expectation.streamOrConnectionError(stream, codes));
    }

    /**
     * Sends a PING and expects its ACK with the same payload; other frames are let through.
     *
     * @throws IOException if the write fails
     */
    public void expectPingAnswered() throws IOException {
        byte[] opaque = randomOpaque();
        pingIfOpen(opaque);
        long deadline = deadline();
        while (true) {
            Frame f = poll(deadline);
            if (f == TIMED_OUT || f == null) {
                throw new AssertionError("a PING was not answered: " + (f == null ? "the server closed the connection"
                        : "no ACK within " + timeoutMillis + " ms") + "; received " + log);
            }
            if (f.type() == Frame.GOAWAY) {
                throw new AssertionError("a PING was answered with " + f + "; received " + log);
            }
            if (f.type() == Frame.PING && f.has(Frame.ACK)) {
                if (!Arrays.equals(f.payload(), opaque)) {
                    throw new AssertionError("PING ACK with payload " + Arrays.toString(f.payload()) + ", sent " + Arrays.toString(opaque));
                }
                return;
            }
        }
    }

    /**
     * Expects the server to close the connection within the timeout, whatever it sends first.
     *
     * @param why what the close follows, for the message
     */
    public void awaitClose(String why) {
        long deadline = deadline();
        while (true) {
            Frame f = poll(deadline);
            if (f == null) {
                return;
            }
            if (f == TIMED_OUT) {
                throw new AssertionError("the connection stayed open " + timeoutMillis + " ms " + why + "; received " + log);
            }
        }
    }

    /**
     * Waits {@code millis} and fails if a DATA frame for {@code stream} arrives meanwhile.
     *
     * @param stream the stream
     * @param millis how long
     * @param why what the silence means, for the message
     */
    public void expectNoDataFor(int stream, int millis, String why) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (true) {
            Frame f = poll(deadline);
            if (f == TIMED_OUT) {
                return;
            }
            if (f == null || f.type() == Frame.GOAWAY || (f.type() == Frame.DATA && f.streamId() == stream && f.payload().length > 0)
                    || (f.type() == Frame.RST_STREAM && f.streamId() == stream)) {
                throw new AssertionError(why + ", but got " + (f == null ? "a close" : f) + "; received " + log);
            }
        }
    }

    /**
     * Waits at most {@code millis} for a frame on {@code stream}, a GOAWAY or the close, which then
     * waits for the case; frames on other streams pass by.
     *
     * @param stream the stream
     * @param millis how long
     * @return whether one came
     */
    public boolean frameOnStreamWithin(int stream, int millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (true) {
            Frame f = poll(deadline);
            if (f == TIMED_OUT) {
                return false;
            }
            if (f == null) {
                return true;
            }
            if (f.streamId() == stream || f.type() == Frame.GOAWAY) {
                backlog.addFirst(f);
                return true;
            }
        }
    }

    /**
     * Reads the next DATA frame of {@code stream}, frames of other kinds passing by.
     *
     * @param stream the stream
     * @return the frame
     */
    public Frame nextData(int stream) {
        long deadline = deadline();
        while (true) {
            Frame f = poll(deadline);
            if (f == TIMED_OUT || f == null || f.type() == Frame.GOAWAY || (f.type() == Frame.RST_STREAM && f.streamId() == stream)) {
                throw new AssertionError("expected DATA on stream " + stream + " but got "
                        + (f == null ? "a close" : f == TIMED_OUT ? "nothing within " + timeoutMillis + " ms" : f) + "; received " + log);
            }
            if (f.type() == Frame.DATA && f.streamId() == stream) {
                return f;
            }
        }
    }

    /**
     * Reads the response on {@code stream}: the final header section, DATA, trailers, up to END_STREAM.
     *
     * @param stream the stream
     * @return the response
     */
    public H2Response response(int stream) {
        return responses(List.of(stream)).get(stream);
    }

    /**
     * As {@link #response}, where a graceful GOAWAY that leaves {@code stream} unprocessed (its id
     * above the GOAWAY's last stream id) is an answer too: RFC 9113 8.7 lets the client send the
     * request again on another connection.
     *
     * @param stream the stream
     * @return the response, or null if the server refused the stream that way
     */
    public H2Response responseUnlessRefused(int stream) {
        Map<Integer, H2Response> got = responses(List.of(stream), true);
        return got == null ? null : got.get(stream);
    }

    /**
     * Reads the responses on {@code streams}, in whatever order and interleaving they come.
     *
     * @param streams the streams
     * @return stream to response
     */
    public Map<Integer, H2Response> responses(Collection<Integer> streams) {
        return responses(streams, false);
    }

    /** The responses, or null when {@code refusalAnswers} and a graceful GOAWAY refused one of the streams. */
    private Map<Integer, H2Response> responses(Collection<Integer> streams, boolean refusalAnswers) {
        Map<Integer, List<Header>> heads = new HashMap<>();
        Map<Integer, List<Header>> trailers = new HashMap<>();
        Map<Integer, ByteArrayOutputStream> bodies = new HashMap<>();
        Map<Integer, H2Response> done = new LinkedHashMap<>();
        long deadline = System.nanoTime() + (timeoutMillis + 20L * streams.size()) * 1_000_000L;
        while (done.size() < streams.size()) {
            Frame f = poll(deadline);
            String waiting = "waiting for the responses on streams " + streams + ", done " + done.keySet();
            if (f == TIMED_OUT || f == null) {
                throw new AssertionError(waiting + ": " + (f == null ? "the server closed the connection" : "nothing more within the timeout")
                        + "; received " + log);
            }
            int s = f.streamId();
            // a graceful GOAWAY (RFC 9113 6.8) still finishes the streams up to its last stream id
            boolean gracefulForAll = f.type() == Frame.GOAWAY && f.errorCode() == 0
                    && streams.stream().allMatch(id -> done.containsKey(id) || id <= f.lastStreamId());
            if (refusalAnswers && f.type() == Frame.GOAWAY && f.errorCode() == 0 && !gracefulForAll) {
                return null;
            }
            if (f.type() == Frame.GOAWAY && !gracefulForAll || (f.type() == Frame.RST_STREAM && streams.contains(s))) {
                throw new AssertionError(waiting + ": got " + f + "; received " + log);
            }
            if (!streams.contains(s) || done.containsKey(s)) {
                continue;
            }
            if (f.type() == Frame.HEADERS && f.fields() != null) {
                if (!heads.containsKey(s)) {
                    String status = f.fields().isEmpty() ? "" : f.fields().getFirst().value();
                    if (!status.startsWith("1") || f.has(Frame.END_STREAM)) {
                        heads.put(s, f.fields());
                    }
                } else {
                    trailers.put(s, f.fields());
                }
            } else if (f.type() == Frame.DATA) {
                if (!heads.containsKey(s)) {
                    throw new AssertionError("DATA before the header section on stream " + s + "; received " + log);
                }
                bodies.computeIfAbsent(s, k -> new ByteArrayOutputStream()).writeBytes(f.data());
            }
            if ((f.type() == Frame.DATA || (f.type() == Frame.HEADERS && f.fields() != null)) && f.has(Frame.END_STREAM)) {
                ByteArrayOutputStream body = bodies.getOrDefault(s, new ByteArrayOutputStream());
                done.put(s, new H2Response(s, heads.get(s), body.toByteArray(), trailers.getOrDefault(s, List.of())));
            }
        }
        return done;
    }

    /** The next frame: one a wait set aside, or one read from the socket; null at the close, TIMED_OUT past the deadline. */
    private Frame poll(long deadlineNanos) {
        Frame set = backlog.poll();
        if (set != null) {
            return set;
        }
        while (true) {
            if (eof) {
                return null;
            }
            Frame f;
            try {
                f = read(deadlineNanos);
            } catch (SocketTimeoutException e) {
                return TIMED_OUT;
            } catch (EOFException | SocketException e) {
                eof = true;
                return null;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            if (f == null) {
                eof = true;
                return null;
            }
            remember(f);
            try {
                Frame handled = handle(f);
                if (handled != null) {
                    return handled;
                }
            } catch (IOException e) {
                // the server may close as the client answers it: what it sent before still counts
                eof = true;
                return f;
            }
        }
    }

    private Frame read(long deadlineNanos) throws IOException {
        long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
        if (left <= 0) {
            throw new SocketTimeoutException();
        }
        socket.setSoTimeout((int) Math.max(1, left));
        int first = in.read();
        if (first < 0) {
            return null;
        }
        socket.setSoTimeout(timeoutMillis);
        byte[] header = new byte[9];
        header[0] = (byte) first;
        readFully(header, 1, 8);
        int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
        if (new String(header, 0, 5, StandardCharsets.ISO_8859_1).equals("HTTP/")) {
            throw new AssertionError("the server answered in HTTP/1.x, not HTTP/2: '"
                    + new String(header, StandardCharsets.ISO_8859_1) + "...'");
        }
        if (length > MAX_FRAME_SIZE) {
            throw new AssertionError("the server sent a frame of " + length + " bytes, more than SETTINGS_MAX_FRAME_SIZE "
                    + MAX_FRAME_SIZE + " (RFC 9113 4.2)");
        }
        byte[] payload = new byte[length];
        readFully(payload, 0, length);
        int stream = ByteBuffer.wrap(header, 5, 4).getInt() & 0x7fffffff;
        Frame f = new Frame(header[3] & 0xff, header[4] & 0xff, stream, payload, null);
        if (firstFrame == null) {
            firstFrame = f;
        }
        return f;
    }

    private void readFully(byte[] b, int off, int len) throws IOException {
        int n = 0;
        while (n < len) {
            int r = in.read(b, off + n, len - n);
            if (r < 0) {
                throw new EOFException("the server closed in the middle of a frame");
            }
            n += r;
        }
    }

    private void remember(Frame f) {
        if (log.size() == LOG_SIZE) {
            log.removeFirst();
        }
        log.addLast(f);
    }

    /** What a client does on receipt; returns the frame for the case, or null for a partial header block. */
    private Frame handle(Frame f) throws IOException {
        switch (f.type()) {
            case Frame.SETTINGS -> {
                if (f.has(Frame.ACK)) {
                    settingsAcks++;
                } else {
                    for (Map.Entry<Integer, Long> s : f.settings().entrySet()) {
                        if (s.getKey() == Frame.SETTINGS_INITIAL_WINDOW_SIZE) {
                            long delta = s.getValue() - serverInitialWindow;
                            serverInitialWindow = s.getValue();
                            streamSendWindows.replaceAll((k, v) -> v + delta);
                        }
                        serverSettings.put(s.getKey(), s.getValue());
                    }
                    if (ackSettings) {
                        settingsAck();
                    }
                }
            }
            case Frame.PING -> {
                if (!f.has(Frame.ACK) && f.payload().length == 8) {
                    ping(true, f.payload());
                }
            }
            case Frame.WINDOW_UPDATE -> {
                if (f.streamId() == 0) {
                    connectionSendWindow += f.windowIncrement();
                } else {
                    streamSendWindows.put(f.streamId(), streamWindow(f.streamId()) + f.windowIncrement());
                }
            }
            case Frame.DATA -> {
                if (replenish && f.payload().length > 0) {
                    windowUpdate(0, f.payload().length);
                    if (!f.has(Frame.END_STREAM)) {
                        windowUpdate(f.streamId(), f.payload().length);
                    }
                }
            }
            case Frame.HEADERS, Frame.PUSH_PROMISE -> {
                block = new ByteArrayOutputStream();
                blockStream = f.streamId();
                blockFlags = f.flags();
                blockType = f.type();
                block.writeBytes(fragment(f));
                return f.has(Frame.END_HEADERS) ? decoded() : null;
            }
            case Frame.CONTINUATION -> {
                if (block == null || f.streamId() != blockStream) {
                    throw new AssertionError("the server sent " + f + " outside a header block (RFC 9113 6.10)");
                }
                block.writeBytes(f.payload());
                return f.has(Frame.END_HEADERS) ? decoded() : null;
            }
            default -> { }
        }
        return f;
    }

    /** The header block fragment of a HEADERS or PUSH_PROMISE frame: padding, priority and promised stream removed. */
    private static byte[] fragment(Frame f) {
        byte[] p = f.payload();
        int start = 0;
        int pad = 0;
        if (f.has(Frame.PADDED)) {
            pad = p[0] & 0xff;
            start = 1;
        }
        if (f.type() == Frame.HEADERS && f.has(Frame.PRIORITY_FLAG)) {
            start += 5;
        }
        if (f.type() == Frame.PUSH_PROMISE) {
            start += 4;
        }
        if (start + pad > p.length) {
            throw new AssertionError("the server sent " + f + " with padding longer than its payload");
        }
        return Arrays.copyOfRange(p, start, p.length - pad);
    }

    /** The whole block, decoded, as a HEADERS (or PUSH_PROMISE) frame with the first frame's flags. */
    private Frame decoded() {
        byte[] whole = block.toByteArray();
        block = null;
        List<Header> fields = new ArrayList<>();
        try {
            Http2Headers headers = decoder.decodeHeaders(blockStream, Unpooled.wrappedBuffer(whole));
            for (Map.Entry<CharSequence, CharSequence> e : headers) {
                fields.add(new Header(e.getKey().toString(), e.getValue().toString()));
            }
        } catch (Http2Exception e) {
            throw new AssertionError("the server's header block on stream " + blockStream + " does not decode: " + e.getMessage(), e);
        }
        Frame f = new Frame(blockType, blockFlags | Frame.END_HEADERS, blockStream, whole, List.copyOf(fields));
        log.removeLast();
        remember(f);
        return f;
    }

    private long streamWindow(int stream) {
        return streamSendWindows.getOrDefault(stream, serverInitialWindow);
    }

    private void consumeSendWindow(int stream, int length) {
        connectionSendWindow -= length;
        streamSendWindows.put(stream, streamWindow(stream) - length);
    }

    private long deadline() {
        return System.nanoTime() + timeoutMillis * 1_000_000L;
    }

    /** Sends a PING; if the server has closed already, what it sent before is read and judged instead. */
    private void pingIfOpen(byte[] opaque) {
        try {
            ping(false, opaque);
        } catch (IOException e) {
            // the reads that follow meet the close
        }
    }

    private static byte[] randomOpaque() {
        byte[] b = new byte[8];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    /** Closes the socket. */
    @Override
    public void close() throws IOException {
        socket.close();
    }
}
