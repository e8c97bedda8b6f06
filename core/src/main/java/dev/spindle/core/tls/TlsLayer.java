// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.tls;

import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.spi.LayeredConnection;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The record layer of a {@link TlsConnection}, without any I/O: what the strategy reads is
 * unwrapped here and the plaintext handed to the {@link LayeredConnection} it wraps (HTTP/1.1 or
 * HTTP/2, as ALPN chose); what that has to send is wrapped here into records the strategy writes.
 * The strategy sees only the connection's usual calls, so no strategy knows TLS.
 *
 * <p>Wrapping takes plaintext from the HTTP side only while fewer than {@link #netHighWater} record
 * bytes wait for the socket, so the HTTP side's own back-pressure still applies. Delegated engine
 * tasks (certificate work) run inline on the connection's thread. When the HTTP side has finished
 * (it is closing and all its output is wrapped) the layer sends {@code close_notify}. A TLS error
 * fails the connection: what the engine has to say (an alert) is still sent, the rest is dropped.
 *
 * <p>When the handshake completes the HTTP side is told the application protocol ALPN agreed on,
 * once, before any of its bytes reach it.
 */
final class TlsLayer {
    private static final Logger log = LoggerFactory.getLogger(TlsLayer.class);
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** The first byte of a TLS handshake record (RFC 8446, 5.1). */
    private static final byte HANDSHAKE_RECORD = 22;
    /**
     * Where one read's records are decrypted before the HTTP side parses them in place: one per
     * thread, since the HTTP side keeps no reference once it returns, so idle TLS connections hold
     * no plaintext buffer.
     */
    private static final ThreadLocal<ByteBuffer> PLAINTEXT = ThreadLocal.withInitial(() -> ByteBuffer.allocate(0));

    private final SSLEngine engine;
    private final LayeredConnection http;
    private final OutputBuffer netOut;
    private final int packetSize;
    private final int netHighWater;
    /** Bytes of a record not complete yet, in read mode; null while none are kept. */
    private ByteBuffer netIn;
    private final int appBufferSize;
    private boolean started;
    private boolean established;
    private boolean closeSent;
    private boolean failed;
    /** What failed the layer, for a client's requests; null while nothing did. */
    private SSLException failure;

    TlsLayer(SSLEngine engine, LayeredConnection http) {
        this.engine = engine;
        this.http = http;
        this.packetSize = engine.getSession().getPacketBufferSize();
        this.netHighWater = 4 * packetSize;
        this.netOut = new OutputBuffer(packetSize);
        this.appBufferSize = engine.getSession().getApplicationBufferSize();
    }

    /**
     * Whether the first bytes of a connection are an HTTP request rather than a TLS handshake: a
     * request line starts with an upper-case method name, a TLS connection with a handshake record.
     */
    boolean plainHttpArrived(ByteBuffer src) {
        if (started || !src.hasRemaining()) {
            return false;
        }
        byte first = src.get(src.position());
        return first != HANDSHAKE_RECORD && first >= 'A' && first <= 'Z';
    }

    /** Unwraps what arrived and hands the plaintext to the HTTP side. */
    void received(ByteBuffer src) {
        unwrap(src);
        fill();
    }

    /**
     * The peer closed its side of the socket, with or without {@code close_notify}.
     *
     * @return whether it sent {@code close_notify} first (without it, what it sent may be cut short)
     */
    boolean inputEnded() {
        try {
            engine.closeInbound();
            return true;
        } catch (SSLException e) {
            log.debug("the peer closed without close_notify: {}", e.getMessage());
            return false;
        }
    }

    /** {@return what failed the layer, or null} */
    SSLException failure() {
        return failure;
    }

    ByteBuffer outbound() {
        return netOut.view();
    }

    boolean hasOutbound() {
        return netOut.pending() > 0;
    }

    void written(int bytes) {
        netOut.written(bytes);
        fill();
    }

    /** Still negotiating: no HTTP can pass yet. */
    boolean handshaking() {
        return !established && !failed && !engine.isInboundDone();
    }

    /** The engine waits for the peer's handshake bytes, whatever the HTTP side wants. */
    boolean needsInput() {
        return !failed && !engine.isInboundDone() && engine.getHandshakeStatus() == HandshakeStatus.NEED_UNWRAP;
    }

    /** The negotiated protocol and suite, for logs. */
    @Override
    public String toString() {
        return engine.getSession().getProtocol() + " " + engine.getSession().getCipherSuite();
    }

    /**
     * Unwraps every complete record in {@code src} (after the bytes kept from before), keeps an
     * incomplete record's bytes for the next call, and only then hands the plaintext to the HTTP side.
     */
    private void unwrap(ByteBuffer src) {
        if (!src.hasRemaining()) {
            return;
        }
        started = true;
        ByteBuffer from = src;
        if (netIn != null && netIn.hasRemaining()) {
            netIn = appended(netIn, src);
            from = netIn;
        }
        ByteBuffer app = PLAINTEXT.get();
        if (app == null || app.capacity() < appBufferSize) {
            app = ByteBuffer.allocate(appBufferSize);
        }
        app.clear();
        try {
            while (!failed) {
                HandshakeStatus status = engine.getHandshakeStatus();
                if (status == HandshakeStatus.NEED_TASK) {
                    runTasks();
                    continue;
                }
                if (status == HandshakeStatus.NEED_WRAP) {
                    if (wrap(EMPTY)) {
                        continue;
                    }
                    break;
                }
                if (!from.hasRemaining() || engine.isInboundDone()) {
                    break;
                }
                if (app.remaining() < appBufferSize) {
                    app = ByteBuffer.allocate(app.capacity() * 2).put(app.flip());
                }
                SSLEngineResult r = engine.unwrap(from, app);
                if (r.getHandshakeStatus() == HandshakeStatus.FINISHED || r.bytesProduced() > 0) {
                    established();
                }
                SSLEngineResult.Status s = r.getStatus();
                if (s == SSLEngineResult.Status.BUFFER_UNDERFLOW || s == SSLEngineResult.Status.CLOSED) {
                    break;
                }
                if (s == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                    app = ByteBuffer.allocate(app.capacity() * 2).put(app.flip());
                }
            }
        } catch (SSLException e) {
            fail(e);
        }
        keepRest(from, src);
        PLAINTEXT.set(app);
        try {
            if (app.position() > 0 && !failed) {
                http.received(app.flip());
            }
        } finally {
            // the buffer is the thread's: left flipped by a failing handler, its bytes would reach the next connection
            app.clear();
        }
        if (engine.isInboundDone() && !failed) {
            http.endOfInput();
        }
    }

    /**
     * The handshake is complete (the engine said FINISHED, on an unwrap or, when the server's
     * Finished goes last, on a wrap): the HTTP side learns the agreed protocol, once. Both happen
     * within an unwrap's loop or a fill, before the plaintext is handed over at the end of the unwrap.
     */
    private void established() {
        if (established) {
            return;
        }
        established = true;
        String protocol = engine.getApplicationProtocol();
        // the engine says "" when the client sent no ALPN extension
        http.applicationProtocol(protocol == null || protocol.isEmpty() ? null : protocol);
    }

    /** Keeps the bytes of an incomplete record: the caller may reuse {@code src} at once. */
    private void keepRest(ByteBuffer from, ByteBuffer src) {
        if (from == netIn) {
            if (!netIn.hasRemaining()) {
                netIn = null;
            }
            return;
        }
        if (src.hasRemaining() && !failed) {
            netIn = appended(ByteBuffer.allocate(0), src);
        }
    }

    /** {@code kept} (read mode) followed by all of {@code src}, in a buffer in read mode. */
    private ByteBuffer appended(ByteBuffer kept, ByteBuffer src) {
        int need = kept.remaining() + src.remaining();
        ByteBuffer joined = kept;
        if (kept.capacity() - kept.limit() < src.remaining()) {
            joined = ByteBuffer.allocate(Math.max(need, packetSize));
            joined.put(kept).flip();
        }
        int end = joined.limit();
        joined.limit(end + src.remaining());
        joined.put(end, src, src.position(), src.remaining());
        src.position(src.limit());
        return joined;
    }

    /**
     * Wraps what the HTTP side has to send (and whatever the handshake or the closing needs) into
     * records, while fewer than {@link #netHighWater} bytes wait for the socket.
     */
    void fill() {
        if (failed || engine.isOutboundDone()) {
            dropHttpOutput();
            return;
        }
        try {
            while (netOut.pending() < netHighWater) {
                HandshakeStatus status = engine.getHandshakeStatus();
                if (status == HandshakeStatus.NEED_TASK) {
                    runTasks();
                    continue;
                }
                ByteBuffer src;
                if (status == HandshakeStatus.NEED_WRAP) {
                    src = EMPTY;
                } else if (status == HandshakeStatus.NEED_UNWRAP) {
                    break;
                } else if (http.hasOutbound()) {
                    src = http.outbound();
                } else if (!closeSent && http.outputFinished()) {
                    closeSent = true;
                    engine.closeOutbound();
                    continue;
                } else {
                    break;
                }
                if (!wrap(src)) {
                    break;
                }
            }
        } catch (SSLException e) {
            fail(e);
        }
        if (failed || engine.isOutboundDone()) {
            dropHttpOutput();
        }
    }

    /** One wrap of {@code src} into the pending records; false if it made no progress. */
    private boolean wrap(ByteBuffer src) throws SSLException {
        netOut.ensure(packetSize);
        ByteBuffer dst = netOut.tail();
        SSLEngineResult r = engine.wrap(src, dst);
        netOut.commit(r.bytesProduced());
        if (r.getHandshakeStatus() == HandshakeStatus.FINISHED) {
            established();
        }
        if (src != EMPTY && r.bytesConsumed() > 0) {
            http.written(r.bytesConsumed());
        }
        return r.bytesProduced() > 0 || r.bytesConsumed() > 0;
    }

    /** Output that can no longer be sent (the engine failed or closed its side) is dropped, as if written. */
    private void dropHttpOutput() {
        while (http.hasOutbound()) {
            http.written(http.outbound().remaining());
        }
    }

    private void runTasks() {
        for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
            task.run();
        }
    }

    /** A TLS error: send the alert the engine has (if any), then the connection ends. */
    private void fail(SSLException e) {
        log.debug("TLS failed: {}", e.getMessage());
        failed = true;
        failure = e;
        netIn = null;
        engine.closeOutbound();
        try {
            for (int i = 0; i < 4 && engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP; i++) {
                netOut.ensure(packetSize);
                netOut.commit(engine.wrap(EMPTY, netOut.tail()).bytesProduced());
            }
        } catch (SSLException ignored) {
            // the alert is a courtesy; the connection ends either way
        }
        http.inputFailed();
    }
}
