package dev.spindle.core.spi;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.http2.Http2Connection;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

/**
 * A connection that speaks HTTP/1.1 unless its first bytes are the HTTP/2 connection preface
 * (h2c with prior knowledge, RFC 9113 3.3) or TLS chose {@code h2} by ALPN: until the first bytes
 * tell, nothing is handed on; then every call goes to the protocol's connection. HTTP/1.1 costs
 * one field read per call.
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
    private final HttpConnection http1;
    private LayeredConnection current;
    /** How many bytes of the preface arrived so far, while it is undecided; -1 once decided. */
    private int matched;
    private boolean transferFiles;
    /** {@link #drain()} was called (from any thread): a connection switched to later drains too. */
    private volatile boolean draining;
    private InputPump pump;

    ProtocolSwitch(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget) {
        this.router = router;
        this.config = config;
        this.blockingExecutor = blockingExecutor;
        this.wakeup = wakeup;
        this.budget = budget;
        this.http1 = new HttpConnection(router, config, blockingExecutor, wakeup, budget);
        this.current = http1;
    }

    @Override
    public void transferFiles(boolean on) {
        transferFiles = on;
        current.transferFiles(on);
    }

    @Override
    public void inputPump(InputPump pump) {
        this.pump = pump;
        current.inputPump(pump);
    }

    @Override
    public Next received(ByteBuffer src) {
        if (matched < 0) {
            return current.received(src);
        }
        return decide(src);
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        if (matched < 0) {
            return current.received(memory, offset, length);
        }
        return length == 0 ? next() : decide(memory.asSlice(offset, length).asByteBuffer());
    }

    /** Compares the first bytes with the preface; hands them to HTTP/1.1 at the first that differs. */
    private Next decide(ByteBuffer src) {
        int p = src.position();
        int m = matched;
        while (m < PREFACE.length && p < src.limit()) {
            if (src.get(p) != PREFACE[m]) {
                matched = -1;
                if (m > 0) {
                    // the bytes that matched were held back: HTTP/1.1 gets them first
                    http1.received(ByteBuffer.wrap(PREFACE, 0, m));
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

    private Http2Connection switchToHttp2() {
        matched = -1;
        Http2Connection h2 = new Http2Connection(router, config, blockingExecutor, wakeup, budget);
        h2.transferFiles(transferFiles);
        if (pump != null) {
            h2.inputPump(pump);
        }
        current = h2;
        if (draining) {
            h2.drain();
        }
        return h2;
    }

    @Override
    public void applicationProtocol(String protocol) {
        if (ALPN_H2.equals(protocol) && matched >= 0) {
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
        return current.endOfInput();
    }

    @Override
    public Next resume() {
        return current.resume();
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
        return current.written(bytes);
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
        return current.tick(now);
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
