package dev.spindle.blocking;

import dev.spindle.core.Connection;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves one socket with blocking reads and writes: read, feed the core connection, write its output. */
final class ConnectionLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ConnectionLoop.class);
    private static final byte[] REQUEST_TIMEOUT = Connection.rejection(408, "request not received in time");
    private static final int LINGER_MILLIS = 500;
    private static final int LINGER_BYTES = 1 << 20;

    private final BlockingServer server;
    private final Socket socket;
    /** True while blocked reading with no request in progress: shutdown may close it at once. */
    private volatile boolean idle;
    /** Nanos by which the current write must finish, or 0 when not writing; enforced by the server's watchdog. */
    private volatile long writeDeadline;

    ConnectionLoop(BlockingServer server, Socket socket) {
        this.server = server;
        this.socket = socket;
    }

    @Override
    public void run() {
        try (socket) {
            serve();
        } catch (IOException e) {
            log.debug("connection {} ended: {}", socket.getRemoteSocketAddress(), e.toString());
        } catch (RuntimeException e) {
            log.error("connection {} failed", socket.getRemoteSocketAddress(), e);
        } finally {
            server.finished(this);
        }
    }

    private void serve() throws IOException {
        socket.setTcpNoDelay(true);
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        Connection conn = new Connection(server.router(), server.config());
        byte[] buf = new byte[server.config().readBufferSize()];
        ByteBuffer received = ByteBuffer.wrap(buf);
        long idleMillis = server.config().idleTimeout().toMillis();
        long headerNanos = server.config().headerTimeout().toNanos();
        long requestDeadline = 0;
        boolean peerClosed = false;
        while (!conn.shouldClose()) {
            int timeout;
            if (conn.hasPartialRequest()) {
                long now = System.nanoTime();
                if (requestDeadline == 0) {
                    requestDeadline = now + headerNanos;
                }
                timeout = (int) Math.max(1, (requestDeadline - now) / 1_000_000);
            } else {
                requestDeadline = 0;
                timeout = (int) Math.min(idleMillis, Integer.MAX_VALUE);
                idle = true;
                if (server.isClosing()) {
                    return;
                }
            }
            socket.setSoTimeout(timeout);
            int n;
            try {
                n = in.read(buf);
            } catch (SocketTimeoutException e) {
                if (conn.hasPartialRequest()) {
                    write(out, REQUEST_TIMEOUT, 0, REQUEST_TIMEOUT.length);
                    linger(in);
                }
                return;
            } finally {
                idle = false;
            }
            if (n < 0) {
                peerClosed = true;
                conn.endOfInput();
            } else {
                if (server.isClosing() || server.dispatch().saturated()) {
                    conn.closeAfterResponse();
                }
                conn.received(received.clear().limit(n));
            }
            flush(conn, out);
        }
        if (!peerClosed) {
            linger(in);
        }
    }

    private void flush(Connection conn, OutputStream out) throws IOException {
        while (conn.hasOutbound()) {
            ByteBuffer pending = conn.outbound();
            int len = pending.remaining();
            write(out, pending.array(), pending.arrayOffset() + pending.position(), len);
            conn.written(len);
            conn.resume();
        }
    }

    private void write(OutputStream out, byte[] data, int offset, int len) throws IOException {
        writeDeadline = System.nanoTime() + server.config().writeTimeout().toNanos();
        try {
            out.write(data, offset, len);
        } finally {
            writeDeadline = 0;
        }
    }

    /**
     * Half-closes and drains what the peer still sends for a moment before closing, so the
     * response is not destroyed by a reset caused by unread request bytes.
     */
    private void linger(InputStream in) {
        try {
            socket.shutdownOutput();
            socket.setSoTimeout(LINGER_MILLIS);
            byte[] sink = new byte[8192];
            long deadline = System.nanoTime() + LINGER_MILLIS * 1_000_000L;
            int total = 0;
            int n;
            while (total < LINGER_BYTES && System.nanoTime() < deadline && (n = in.read(sink)) >= 0) {
                total += n;
            }
        } catch (IOException e) {
            log.trace("linger ended: {}", e.toString());
        }
    }

    /** Closes the socket if the connection waits idle for its next request (graceful shutdown). */
    void closeIfIdle() {
        if (idle) {
            closeNow();
        }
    }

    /** Closes the socket if a write has been blocked beyond the write timeout. */
    void enforceWriteDeadline(long now) {
        long deadline = writeDeadline;
        if (deadline != 0 && now - deadline > 0) {
            log.debug("write timeout on {}", socket.getRemoteSocketAddress());
            closeNow();
        }
    }

    void closeNow() {
        try {
            socket.close();
        } catch (IOException e) {
            log.trace("close failed: {}", e.toString());
        }
    }
}
