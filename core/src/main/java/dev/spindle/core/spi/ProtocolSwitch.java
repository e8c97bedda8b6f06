// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.http2.Http2Connection;
import dev.spindle.core.websocket.WebSocketConnection;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

/**
 * A connection that speaks HTTP/1.1 unless its first bytes are the HTTP/2 connection preface
 * (h2c with prior knowledge, RFC 9113 3.3) or TLS chose {@code h2} by ALPN: until the first bytes
 * tell, nothing is handed on; then every call goes to the protocol's connection. A request that
 * switches protocols (h2c by {@code Upgrade}, a WebSocket handshake) hands the connection over
 * the same way. HTTP/1.1 costs one field read per call.
 */
final class ProtocolSwitch implements LayeredConnection {
    /** The ALPN protocol id of HTTP/2 over TLS (RFC 9113 3.2). */
    static final String ALPN_H2 = "h2";
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Router router;
    private final ServerConfig config;
    private final Executor blockingExecutor;
    private final Runnable wakeup;
    private final BodyBudget budget;
    /** Until the connection switches to a WebSocket or to h2c by an upgrade: then let go, with its buffers. */
    private HttpConnection http1;
    private LayeredConnection current;
    /** How many bytes of the preface arrived so far, while it is undecided; -1 once decided. */
    private int matched;
    private boolean transferFiles;
    /** {@link #drain()} was called (from any thread): a connection switched to later drains too. */
    private volatile boolean draining;

    /**
     * @param plain true on a plain port that speaks h2c: h2c by the preface or by {@code Upgrade};
     *        false inside TLS, where only ALPN chooses HTTP/2 (RFC 9113 3.2), or on a port without h2c
     *        (only a WebSocket handshake switches it)
     */
    ProtocolSwitch(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget, boolean plain) {
        this.router = router;
        this.config = config;
        this.blockingExecutor = blockingExecutor;
        this.wakeup = wakeup;
        this.budget = budget;
        this.http1 = new HttpConnection(router, config, blockingExecutor, wakeup, budget);
        this.current = http1;
        this.matched = plain ? 0 : -1;
        if (plain) {
            http1.allowH2cUpgrade();
        }
    }

    @Override
    public void transferFiles(boolean on) {
        transferFiles = on;
        current.transferFiles(on);
    }

    @Override
    public Next received(ByteBuffer src) {
        if (matched < 0) {
            return current == http1 ? afterHttp1(http1.received(src)) : current.received(src);
        }
        return afterHttp1(decide(src));
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        if (matched < 0) {
            return current == http1 ? afterHttp1(http1.received(memory, offset, length)) : current.received(memory, offset, length);
        }
        return length == 0 ? next() : afterHttp1(decide(memory.asSlice(offset, length).asByteBuffer()));
    }

    /** Compares the first bytes with the preface; hands them to HTTP/1.1 at the first that differs. */
    private Next decide(ByteBuffer src) {
        int p = src.position();
        int held = matched;
        int m = held;
        while (m < PREFACE.length && p < src.limit()) {
            if (src.get(p) != PREFACE[m]) {
                matched = -1;
                if (held > 0) {
                    // the bytes that matched in earlier calls were held back: HTTP/1.1 gets them first
                    http1.received(ByteBuffer.wrap(PREFACE, 0, held));
                }
                return http1.received(src);
            }
            p++;
            m++;
        }
        if (m < PREFACE.length) {
            matched = m;
            src.position(src.limit());
            return Next.READ;
        }
        Http2Connection h2 = switchToHttp2();
        h2.received(ByteBuffer.wrap(PREFACE));
        src.position(p);
        return h2.received(src);
    }

    /** After HTTP/1.1 processed a call: a request that asked for h2c, or a WebSocket handshake, switches the connection now. */
    private Next afterHttp1(Next next) {
        if (current != http1) {
            return next;
        }
        if (http1.webSocketUpgrade() != null) {
            return switchToWebSocket();
        }
        if (http1.h2cUpgrade() == null) {
            return next;
        }
        byte[] before = http1.takeOutput();
        byte[] rest = http1.takeInput();
        Http2Connection h2 = install(Http2Connection.upgraded(router, config, blockingExecutor, wakeup, budget,
                http1.h2cUpgrade(), http1.h2cSettings(), before));
        http1.closed();
        http1 = null;
        return rest.length > 0 ? h2.received(ByteBuffer.wrap(rest)) : h2.next();
    }

    private Next switchToWebSocket() {
        byte[] before = http1.takeOutput();
        byte[] rest = http1.takeInput();
        WebSocketConnection ws = new WebSocketConnection(http1.webSocketUpgrade(), http1.webSocketRequest(), config,
                wakeup, before);
        http1.closed();
        // an idle socket holds only its WebSocket state, not the HTTP/1.1 connection it began as
        http1 = null;
        matched = -1;
        current = ws;
        if (draining) {
            ws.drain();
        }
        return ws.open(rest);
    }

    private Http2Connection switchToHttp2() {
        return install(new Http2Connection(router, config, blockingExecutor, wakeup, budget));
    }

    private Http2Connection install(Http2Connection h2) {
        matched = -1;
        h2.transferFiles(transferFiles);
        current = h2;
        if (draining) {
            h2.drain();
        }
        return h2;
    }

    @Override
    public void applicationProtocol(String protocol) {
        if (ALPN_H2.equals(protocol) && current == http1) {
            switchToHttp2();
        }
    }

    @Override
    public void inputActivity() {
        current.inputActivity();
    }

    @Override
    public void outputActivity() {
        current.outputActivity();
    }

    @Override
    public void refuse(int status, String message) {
        matched = -1;
        current.refuse(status, message);
    }

    @Override
    public void inputFailed() {
        current.inputFailed();
    }

    @Override
    public boolean hasOutbound() {
        return current.hasOutbound();
    }

    @Override
    public boolean outputFinished() {
        return current.outputFinished();
    }

    @Override
    public boolean aborted() {
        return current.aborted();
    }

    @Override
    public void abort() {
        current.abort();
    }

    @Override
    public Next endOfInput() {
        int m = matched;
        matched = -1;
        if (m > 0) {
            http1.received(ByteBuffer.wrap(PREFACE, 0, m));
        }
        return afterHttp1(current.endOfInput());
    }

    @Override
    public Next resume() {
        return afterHttp1(current.resume());
    }

    @Override
    public Next next() {
        return current.next();
    }

    @Override
    public State state() {
        return current.state();
    }

    @Override
    public ByteBuffer outbound() {
        return current.outbound();
    }

    @Override
    public FileRegion outboundFile() {
        return current.outboundFile();
    }

    @Override
    public Next written(int bytes) {
        return afterHttp1(current.written(bytes));
    }

    @Override
    public void closeAfterResponse() {
        current.closeAfterResponse();
    }

    @Override
    public void drain() {
        draining = true;
        current.drain();
    }

    @Override
    public Next tick(long now) {
        return afterHttp1(current.tick(now));
    }

    @Override
    public long nanosToTick(long now) {
        return current.nanosToTick(now);
    }

    @Override
    public void closed() {
        current.closed();
    }

    @Override
    public String toString() {
        return current.toString();
    }
}
