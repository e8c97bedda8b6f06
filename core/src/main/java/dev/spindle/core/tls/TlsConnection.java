package dev.spindle.core.tls;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.Deadlines;
import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS as a layer around a plain {@link HttpConnection}: the strategy feeds it records and writes
 * the records it hands out, exactly as it would a plain connection; the {@link TlsLayer} in
 * between unwraps into the HTTP connection and wraps what it answers. The HTTP connection knows
 * nothing of TLS. The handshake has the header timeout: a peer that opens a connection must
 * finish its handshake in time, as it must send a request's header.
 */
public final class TlsConnection implements Connection {
    private static final Logger log = LoggerFactory.getLogger(TlsConnection.class);

    private final HttpConnection http;
    private final TlsLayer tls;
    private final long handshakeTimeout;
    /** A plain HTTP request arrived on the TLS port: the layer stepped aside to refuse it in plain HTTP. */
    private boolean plain;
    private long handshakeStarted;

    public TlsConnection(HttpConnection http, ServerConfig config) {
        this.http = http;
        this.tls = new TlsLayer(ApiAccess.get().newEngine(config.tls()), http);
        this.handshakeTimeout = config.headerTimeout().toNanos();
        http.transferFiles(false);
    }

    @Override
    public void transferFiles(boolean on) {
        // TLS encrypts every byte, so file bodies pass through the output like any other body
    }

    @Override
    public void inputPump(InputPump pump) {
        http.inputPump(dst -> plain ? pump.read(dst) : tls.pump(pump, dst));
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
