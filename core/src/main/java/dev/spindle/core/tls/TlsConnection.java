// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.tls;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.Deadlines;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.LayeredConnection;
import dev.spindle.core.spi.Next;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.SSLEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS as a layer around a plain protocol connection (a {@link LayeredConnection}: HTTP/1.1, HTTP/2,
 * or one that switches as ALPN says): the strategy feeds it records and writes the records it hands
 * out, exactly as it would a plain connection; the {@link TlsLayer} in between unwraps into the
 * inner connection and wraps what it answers. The inner connection knows nothing of TLS. The
 * handshake has the header timeout: a peer that opens a connection must finish its handshake in
 * time, as it must send a request's header.
 *
 * <p>ALPN (RFC 7301): the server picks the first of its own protocols, in its order of preference,
 * that the client offers, and tells the inner connection when the handshake completes. A client
 * that offers no ALPN gets none in return and speaks HTTP/1.1. A client that offers ALPN but none
 * of the server's protocols gets the fatal {@code no_application_protocol} alert, as RFC 7301 3.2
 * requires: such a client would speak something the server does not (it is rare for HTTP; it is
 * what the JDK did before, when the engine offered {@code http/1.1} alone).
 */
public final class TlsConnection implements Connection {
    private static final Logger log = LoggerFactory.getLogger(TlsConnection.class);

    private final LayeredConnection http;
    private final TlsLayer tls;
    private final long handshakeTimeout;
    /** A plain HTTP request arrived on the TLS port: the layer stepped aside to refuse it in plain HTTP. */
    private boolean plain;
    private long handshakeStarted;

    /**
     * TLS around {@code inner}, with the configuration's {@link ServerConfig#tls()}.
     *
     * @param inner the protocol connection the plaintext goes to; told the negotiated protocol
     * @param config the TLS settings and the header timeout, which bounds the handshake
     * @param protocols the ALPN protocol identifiers the server offers, most preferred first, such
     *        as {@code ["h2", "http/1.1"]}: each must be one {@code inner} can speak
     */
    public TlsConnection(LayeredConnection inner, ServerConfig config, List<String> protocols) {
        this.http = inner;
        SSLEngine engine = ApiAccess.get().newEngine(config.tls());
        engine.setHandshakeApplicationProtocolSelector(preferred(protocols));
        this.tls = new TlsLayer(engine, inner);
        this.handshakeTimeout = config.headerTimeout().toNanos();
        inner.transferFiles(false);
    }

    /**
     * The server's ALPN choice: the first of {@code ours} the client offers. Null when it offers
     * none of them, which makes the engine send {@code no_application_protocol} and fail the
     * handshake (an empty string would go on without ALPN instead). The engine does not call it
     * when the client sent no ALPN extension.
     */
    private static BiFunction<SSLEngine, List<String>, String> preferred(List<String> ours) {
        List<String> offered = List.copyOf(ours);
        return (engine, theirs) -> {
            for (String protocol : offered) {
                if (theirs.contains(protocol)) {
                    return protocol;
                }
            }
            return null;
        };
    }

    @Override
    public void transferFiles(boolean on) {
        // TLS encrypts every byte, so file bodies pass through the output like any other body
    }

    @Override
    public Next received(ByteBuffer src) {
        if (plain) {
            return http.received(src);
        }
        if (!src.hasRemaining()) {
            return next();
        }
        http.inputActivity();
        if (tls.plainHttpArrived(src)) {
            log.debug("plain HTTP on a TLS port");
            plain = true;
            http.refuse(400, "this port speaks HTTPS; use an https:// URL");
            return http.received(src);
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
        if (plain) {
            return http.endOfInput();
        }
        tls.inputEnded();
        http.endOfInput();
        return fill();
    }

    @Override
    public Next resume() {
        http.resume();
        return fill();
    }

    @Override
    public ByteBuffer outbound() {
        return plain ? http.outbound() : tls.outbound();
    }

    @Override
    public FileRegion outboundFile() {
        return null;
    }

    @Override
    public Next written(int bytes) {
        if (plain) {
            return http.written(bytes);
        }
        if (bytes > 0) {
            http.outputActivity();
            tls.written(bytes);
        }
        return next();
    }

    @Override
    public Next next() {
        Next inner = http.next();
        if (plain || http.aborted()) {
            return inner;
        }
        boolean write = tls.hasOutbound();
        if (inner == Next.LINGER || inner == Next.CLOSE) {
            // the HTTP side is done; its last records (and close_notify, or an alert) go first
            return write ? Next.WRITE : inner;
        }
        return Next.of(inner.reads() || tls.needsInput(), write);
    }

    @Override
    public State state() {
        State inner = http.state();
        if (plain || !tls.hasOutbound()) {
            return inner;
        }
        return switch (inner) {
            case IDLE, READING_REQUEST -> State.SENDING;
            case LINGERING -> State.CLOSING;
            default -> inner;
        };
    }

    @Override
    public void closeAfterResponse() {
        http.closeAfterResponse();
    }

    @Override
    public void drain() {
        http.drain();
    }

    @Override
    public Next tick(long now) {
        if (!plain && tls.handshaking() && !http.aborted()) {
            if (handshakeStarted == 0) {
                handshakeStarted = now;
            } else if (now - handshakeStarted >= handshakeTimeout) {
                log.debug("TLS handshake not finished within {} ms", handshakeTimeout / 1_000_000);
                http.abort();
                return Next.CLOSE;
            }
        }
        http.tick(now);
        return plain ? http.next() : fill();
    }

    @Override
    public long nanosToTick(long now) {
        if (!plain && tls.handshaking()) {
            return Deadlines.until(handshakeStarted, handshakeTimeout, now);
        }
        return http.nanosToTick(now);
    }

    @Override
    public void closed() {
        http.closed();
    }

    private Next fill() {
        if (!plain && !http.aborted()) {
            tls.fill();
        }
        return next();
    }

    @Override
    public String toString() {
        return tls.toString();
    }
}
