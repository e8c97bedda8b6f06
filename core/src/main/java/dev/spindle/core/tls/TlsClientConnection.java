// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.tls;

import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.spi.LayeredConnection;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS around a client's plaintext connection (HTTP/1.1, a WebSocket handshake), the client side of
 * {@link TlsConnection}: the strategy connects the socket and drives this exactly as it drives a
 * plain outbound connection; the {@link TlsLayer} in between makes the handshake, unwraps into the
 * plaintext connection and wraps what it answers. To the plaintext connection the socket is not
 * connected until the handshake is done: then it hears {@link OutboundConnection#connected()} and
 * writes the requests it holds. A handshake that fails (an untrusted certificate, one for another
 * host, no answer within the connect timeout, a server that speaks no TLS) is a
 * {@link TlsFailure} handed to {@link OutboundConnection#connectFailed}, so its requests fail with
 * that reason; so is a TLS failure later, which ends the connection. A server that closes without
 * {@code close_notify} once connected closes the plaintext connection ({@link #closed()}): what it
 * was receiving may have been cut short and is not taken as complete.
 */
public final class TlsClientConnection implements OutboundConnection {
    private static final Logger log = LoggerFactory.getLogger(TlsClientConnection.class);

    private final OutboundConnection plain;
    private final SSLEngine engine;
    private final TlsLayer tls;
    private final String host;
    private final long handshakeNanos;
    private final long createdAt = System.nanoTime();
    private boolean connected;
    private boolean established;
    /** The handshake or a record failed, or the peer closed: the plaintext side has been told. */
    private boolean over;

    /**
     * TLS around {@code plain}.
     *
     * @param plain the connection the plaintext goes to, connected once the handshake is done
     * @param engine a client engine for the host ({@code ClientTls} makes it)
     * @param host the host the address gave, for messages
     * @param handshakeTimeout the most the connect and the handshake take together; zero for no limit
     */
    public TlsClientConnection(OutboundConnection plain, SSLEngine engine, String host, Duration handshakeTimeout) {
        this.plain = plain;
        this.engine = engine;
        this.host = host;
        this.handshakeNanos = handshakeTimeout.toNanos();
        this.tls = new TlsLayer(engine, new PlainSide());
        plain.transferFiles(false);
    }

    @Override
    public Next connected() {
        connected = true;
        try {
            engine.beginHandshake();
        } catch (SSLException e) {
            fail(TlsFailure.of(e, host));
            return next();
        }
        return fill();
    }

    @Override
    public Next connectFailed(IOException cause) {
        over = true;
        return plain.connectFailed(cause);
    }

    @Override
    public void transferFiles(boolean on) {
        // every byte is encrypted: file regions go through the output
    }

    @Override
    public Next received(ByteBuffer src) {
        if (!src.hasRemaining() || over) {
            src.position(src.limit());
            return next();
        }
        tls.received(src);
        return next();
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        return length == 0 ? next() : received(memory.asSlice(offset, length).asByteBuffer());
    }

    @Override
    public Next endOfInput() {
        if (over) {
            return next();
        }
        boolean notified = tls.inputEnded();
        if (!established) {
            fail(new TlsFailure(Reason.TLS_FAILED, "the server closed the connection during the TLS handshake", null));
        } else if (!notified) {
            log.debug("{} closed the connection without close_notify", host);
            over = true;
            plain.closed();
        } else {
            plain.endOfInput();
        }
        return next();
    }

    @Override
    public Next resume() {
        plain.resume();
        return fill();
    }

    @Override
    public Next next() {
        boolean write = tls.hasOutbound();
        if (over) {
            // an alert (or close_notify) goes out first
            return write ? Next.WRITE : Next.CLOSE;
        }
        if (!connected) {
            return Next.WAIT;
        }
        if (!established) {
            return Next.of(true, write);
        }
        Next inner = plain.next();
        if (inner == Next.LINGER || inner == Next.CLOSE) {
            return write ? Next.WRITE : inner;
        }
        return Next.of(inner.reads() || tls.needsInput(), write);
    }

    @Override
    public State state() {
        if (over) {
            return tls.hasOutbound() ? State.CLOSING : State.CLOSED;
        }
        if (!established) {
            return tls.hasOutbound() ? State.SENDING : State.HANDLING;
        }
        State inner = plain.state();
        return tls.hasOutbound() && (inner == State.IDLE || inner == State.READING_REQUEST) ? State.SENDING : inner;
    }

    @Override
    public ByteBuffer outbound() {
        return tls.outbound();
    }

    @Override
    public Next written(int bytes) {
        if (bytes > 0) {
            tls.written(bytes);
        }
        return next();
    }

    @Override
    public void closeAfterResponse() {
        plain.closeAfterResponse();
    }

    @Override
    public void drain() {
        plain.drain();
    }

    @Override
    public Next tick(long now) {
        if (connected && !established && !over) {
            // the plaintext side, still connecting as it sees it, would call it a connect timeout
            if (handshakeNanos > 0 && now - createdAt >= handshakeNanos) {
                fail(new TlsFailure(Reason.TLS_HANDSHAKE_TIMEOUT, "the TLS handshake did not finish within "
                        + handshakeNanos / 1_000_000 + " ms", null));
            }
            return next();
        }
        plain.tick(now);
        return fill();
    }

    @Override
    public long nanosToTick(long now) {
        if (connected && !established && handshakeNanos > 0) {
            return Math.max(1, createdAt + handshakeNanos - now);
        }
        return plain.nanosToTick(now);
    }

    @Override
    public void closed() {
        plain.closed();
    }

    private Next fill() {
        if (!over) {
            tls.fill();
        }
        return next();
    }

    /** The plaintext side hears the failure as its connect's, or as a failure of its connection once connected. */
    private void fail(TlsFailure failure) {
        if (over) {
            return;
        }
        over = true;
        log.debug("TLS with {} failed: {}", host, failure.getMessage());
        plain.connectFailed(failure);
    }

    @Override
    public String toString() {
        return "TLS " + (established ? tls.toString() : "(handshake)") + " around " + plain;
    }

    /** The plaintext connection as the layer sees it: bytes both ways, told when the handshake is done. */
    private final class PlainSide implements LayeredConnection {
        @Override
        public void applicationProtocol(String protocol) {
            established = true;
            plain.negotiated(protocol);
            plain.connected();
        }

        @Override
        public Next received(ByteBuffer src) {
            return plain.received(src);
        }

        @Override
        public Next received(MemorySegment memory, long offset, int length) {
            return plain.received(memory, offset, length);
        }

        @Override
        public Next endOfInput() {
            // close_notify arrived
            return plain.endOfInput();
        }

        @Override
        public boolean hasOutbound() {
            return established && !over && plain.outbound().hasRemaining();
        }

        @Override
        public ByteBuffer outbound() {
            return plain.outbound();
        }

        @Override
        public Next written(int bytes) {
            return plain.written(bytes);
        }

        @Override
        public boolean outputFinished() {
            return established && plain.next() == Next.CLOSE;
        }

        @Override
        public void inputFailed() {
            SSLException e = tls.failure();
            fail(e != null ? TlsFailure.of(e, host) : new TlsFailure(Reason.TLS_FAILED, "TLS failed", null));
        }

        @Override
        public void inputActivity() {
        }

        @Override
        public void outputActivity() {
        }

        @Override
        public void refuse(int status, String message) {
            throw new UnsupportedOperationException("a client refuses nothing");
        }

        @Override
        public boolean aborted() {
            return false;
        }

        @Override
        public void abort() {
        }

        @Override
        public void transferFiles(boolean on) {
        }

        @Override
        public Next resume() {
            return plain.resume();
        }

        @Override
        public Next next() {
            return plain.next();
        }

        @Override
        public State state() {
            return plain.state();
        }

        @Override
        public FileRegion outboundFile() {
            return null;
        }

        @Override
        public void closeAfterResponse() {
            plain.closeAfterResponse();
        }

        @Override
        public void drain() {
            plain.drain();
        }

        @Override
        public Next tick(long now) {
            return plain.tick(now);
        }

        @Override
        public long nanosToTick(long now) {
            return plain.nanosToTick(now);
        }

        @Override
        public void closed() {
            plain.closed();
        }
    }
}
