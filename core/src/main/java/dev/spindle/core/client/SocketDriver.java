// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one sans-I/O {@link Connection} on a blocking socket with two virtual threads: a reader
 * (input) and a writer (wakeups, ticks, output). The connection is called under a lock only;
 * bytes are written outside it, so a slow peer never holds the reader back. Blocking sockets on
 * virtual threads never block an event loop, whoever asked for the socket.
 */
public final class SocketDriver {
    private static final Logger log = LoggerFactory.getLogger(SocketDriver.class);

    private final Socket socket;
    private final Object lock = new Object();
    private final AtomicBoolean woken = new AtomicBoolean();
    private final AtomicBoolean over = new AtomicBoolean();
    private Connection connection;
    private volatile Thread writer;
    private boolean halfClosed;

    /**
     * A driver for {@code socket}, which the caller connects before {@link #start}.
     *
     * @param socket the socket
     */
    public SocketDriver(Socket socket) {
        this.socket = socket;
    }

    /**
     * Runs {@code action} on the connection under the driver's lock, from any thread (a request
     * handed to a shared connection), before or after {@link #start}.
     *
     * @param action what to do
     * @param <T> what it answers
     * @return what it answered
     */
    public <T> T locked(Supplier<T> action) {
        synchronized (lock) {
            return action.get();
        }
    }

    /** The connection's wakeup, from any thread: its {@link Connection#resume()} runs on the writer. */
    public void wake() {
        woken.set(true);
        kick();
    }

    private void kick() {
        Thread w = writer;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /**
     * Makes {@code first} (the connection's opening call) under the lock, then starts the threads.
     *
     * @param connection what the socket carries
     * @param first its opening call, such as {@code connected()}
     */
    public void start(Connection connection, Supplier<Next> first) {
        this.connection = connection;
        Next next;
        synchronized (lock) {
            next = first.get();
        }
        writer = Thread.ofVirtual().name("spindle-socket-writer").start(this::writeLoop);
        if (next != Next.CLOSE) {
            Thread.ofVirtual().name("spindle-socket-reader").start(this::readLoop);
        }
    }

    private void readLoop() {
        byte[] buf = new byte[16 * 1024];
        try {
            InputStream in = socket.getInputStream();
            while (!over.get()) {
                int n = in.read(buf);
                if (n < 0) {
                    synchronized (lock) {
                        connection.endOfInput();
                    }
                    kick();
                    return;
                }
                ByteBuffer src = ByteBuffer.wrap(buf, 0, n);
                while (src.hasRemaining() && !over.get()) {
                    Next next;
                    synchronized (lock) {
                        next = connection.received(src);
                    }
                    kick();
                    if (next == Next.CLOSE) {
                        return;
                    }
                    if (src.hasRemaining()) {
                        // the connection reads no more for now: it is woken once it can
                        LockSupport.parkNanos(1_000_000);
                    }
                }
            }
        } catch (IOException e) {
            if (!over.get()) {
                log.debug("socket read failed: {}", e.toString());
                synchronized (lock) {
                    connection.endOfInput();
                }
                kick();
            }
        } catch (RuntimeException e) {
            log.warn("the connection on {} failed; closing it", socket.getRemoteSocketAddress(), e);
            finish();
        }
    }

    private void writeLoop() {
        try {
            OutputStream out = socket.getOutputStream();
            while (!over.get()) {
                byte[] bytes;
                Next next;
                synchronized (lock) {
                    next = woken.getAndSet(false) ? connection.resume() : connection.tick(System.nanoTime());
                    ByteBuffer pending = connection.outbound();
                    bytes = new byte[pending.remaining()];
                    pending.get(pending.position(), bytes);
                }
                if (bytes.length > 0) {
                    out.write(bytes);
                    out.flush();
                    synchronized (lock) {
                        connection.written(bytes.length);
                    }
                    continue;
                }
                if (next == Next.CLOSE) {
                    break;
                }
                if (next == Next.LINGER && !halfClosed) {
                    // the closing handshake is done: the peer sees our end, and ends its own
                    halfClosed = true;
                    socket.shutdownOutput();
                }
                long wait;
                synchronized (lock) {
                    wait = connection.nanosToTick(System.nanoTime());
                }
                if (!woken.get()) {
                    LockSupport.parkNanos(this, wait);
                }
            }
        } catch (IOException e) {
            log.debug("socket write failed: {}", e.toString());
        } catch (RuntimeException e) {
            // a connection that fails here ends its socket, never leaves it without a writer
            log.warn("the connection on {} failed; closing it", socket.getRemoteSocketAddress(), e);
        }
        finish();
    }

    private void finish() {
        if (over.compareAndSet(false, true)) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            synchronized (lock) {
                connection.closed();
            }
        }
    }
}
