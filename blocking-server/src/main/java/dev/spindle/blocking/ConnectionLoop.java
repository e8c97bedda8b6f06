// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.FailureLog;
import dev.spindle.core.spi.Next;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one socket with blocking reads and writes: read, feed the core connection, write what it
 * hands out, and act on its answers. Inline handlers run on this thread. A blocking handler runs on
 * a virtual thread of its own (the core starts it, as for its HTTP/2 streams), while this thread
 * moves its streamed body and waits: had it run the handler itself, nothing could answer for one
 * that is stuck, whereas waiting it ticks, and the core answers 503 at the handler timeout and drops
 * the late result. Only blocking handlers pay that hop. While the connection waits for a handler or
 * a streamed body's producer, the thread parks until the connection's wakeup runs or a tick is due.
 * The core keeps all the time (read timeouts come from {@link Connection#nanosToTick}); only a
 * blocked write is timed outside it, by the server's watchdog. A duplex connection (an open
 * WebSocket, an event stream) reads with no timeout, and the watchdog has its deadlines ticked on
 * another thread: its deadlines are seconds apart, and each timed read that ran out cost a
 * {@link SocketTimeoutException}, a poller re-registration and a timer. So does an idle keep-alive
 * connection on a virtual thread: there every timed read that blocks schedules a timer on the
 * JDK's scheduler and cancels it when the bytes come, and wakes the scheduler's timer thread to
 * do so (what that cost is measured in results/README.md, issue 41); its idle timeout is kept by the watchdog to within its
 * period. A platform thread's timed read is one poll with a timeout, and keeps it.
 */
final class ConnectionLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ConnectionLoop.class);
    /** How long a waiting thread parks at least, so that a deadline the tick has just passed over cannot make it spin. */
    private static final long MIN_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * How long a read waits, at most, while a handler runs (reading its streamed body): the wakeup
     * cannot end a blocked read, so this is how soon the thread notices the handler finished or wants
     * a {@code 100 Continue} while the client is silent.
     */
    private static final int HANDLING_READ_MILLIS = 10;
    /** How long a pool thread waits for a silent peer (idle, or stalled inside a request) before parking its connection. */
    private static final int PARK_AFTER_MILLIS = 2;

    private final BlockingServer server;
    private final Socket socket;
    private final Connection conn;
    /** Whether this loop holds one of the server's connection slots (false for a rejected socket). */
    private final boolean counted;
    private volatile Thread thread;
    private volatile boolean woken;
    /**
     * The thread writing what other threads send on a duplex connection while this loop reads, or
     * null: started by a wakeup or a due tick, it ends once nothing is left for it.
     */
    private volatile Thread writer;
    /** The connection became duplex (an open WebSocket, an event stream): a wakeup starts {@link #writer}. */
    private volatile boolean duplex;
    /** The loop is over: the writer stops. */
    private volatile boolean ended;
    /**
     * When the next tick is due while this loop's thread reads with no timeout (duplex, or idle on a
     * virtual thread), or 0 when it ticks by itself: set under the connection's lock by whichever
     * thread called the core last, read by the server's watchdog ({@link #tickIfDue}).
     */
    private volatile long tickDue;
    /** The watchdog handed a due tick to the writer, which has not run it yet. */
    private volatile boolean tickQueued;
    /**
     * True while blocked, with no request in progress, in a read begun before the connection drained:
     * that read's timeout knows nothing of the drain's grace, so a closing server ends it by closing
     * the socket. (A read begun while draining times out at the grace, and the core ends the connection.)
     */
    private volatile boolean idle;
    /** Nanos by which the current write must finish, or 0 when not writing; enforced by the server's watchdog. */
    private volatile long writeDeadline;
    private InputStream in;
    private OutputStream out;
    private boolean outputShut;
    /** {@link Connection#drain()} was called: the server is closing. (A tick on another thread may drain too.) */
    private volatile boolean draining;
    private ReadBuffer reads;
    /** Bytes read while parked, to be fed to the connection once a pool thread has it again. */
    private int carried;

    /** @param rejected the connection answering a socket the server will not serve, or null to serve it */
    private ConnectionLoop(BlockingServer server, Socket socket, Connection rejected) {
        this.server = server;
        this.socket = socket;
        this.counted = rejected == null;
        if (rejected != null) {
            this.conn = rejected;
        } else {
            this.conn = Connection.open(server.router(), server.config(), null, this::wake, server.bodyBudget());
        }
    }

    /** A connection the server serves; it holds a connection slot, released when the loop ends. */
    static ConnectionLoop serving(BlockingServer server, Socket socket) {
        return new ConnectionLoop(server, socket, null);
    }

    /** A connection the server will not serve: the core answers {@code status} with {@code message}, lingers and closes. */
    static ConnectionLoop rejecting(BlockingServer server, Socket socket, int status, String message) {
        return new ConnectionLoop(server, socket, Connection.rejecting(server.config(), status, message));
    }

    boolean counted() {
        return counted;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        boolean handedOver = false;
        try {
            handedOver = serve();
        } catch (IOException e) {
            log.debug("connection {} ended: {}", socket.getRemoteSocketAddress(), e.toString());
        } catch (Throwable t) {
            // an Error too (an OutOfMemoryError buffering a body): the finally closes the connection
            // and frees its slot, and this thread (a pool's) serves on; a fatal VM error goes on up
            failed("connection failed; closing it", t);
        } finally {
            if (!handedOver) {
                end();
            }
        }
    }

    /** Serves until the connection is over (true: it lingers on another thread, which closes it). */
    private boolean serve() throws IOException {
        if (in == null) {
            socket.setTcpNoDelay(true);
            in = socket.getInputStream();
            out = socket.getOutputStream();
            reads = new ReadBuffer(server.config().readBufferSize(), !counted);
        }
        drainIfClosing();
        if (carried > 0) {
            int n = carried;
            carried = 0;
            conn.received(reads.filled(n));
        }
        while (true) {
            long now = System.nanoTime();
            Next next;
            Connection.State state;
            long nanosToTick;
            boolean untimed;
            // the writer thread of a duplex connection takes the same lock for its calls and writes
            synchronized (conn) {
                if (woken) {
                    // the wakeup ran while this thread was reading
                    woken = false;
                    conn.resume();
                }
                if (flush() == Next.LINGER && lingersElsewhere()) {
                    return true;
                }
                conn.tick(now);
                next = flush();
                if (next == Next.CLOSE) {
                    return false;
                }
                if (next == Next.LINGER) {
                    if (lingersElsewhere()) {
                        return true;
                    }
                } else if (drainIfClosing()) {
                    continue;
                }
                if (!next.reads()) {
                    await(conn.nanosToTick(now));
                    continue;
                }
                state = conn.state();
                nanosToTick = conn.nanosToTick(now);
                // a duplex connection reads with no timeout, and so does an idle one on a virtual thread
                // (each timed read that blocks there schedules and cancels a timer, and wakes the JDK's
                // timer thread): from here on the watchdog ticks them
                untimed = state == Connection.State.DUPLEX
                        || (state == Connection.State.IDLE && Thread.currentThread().isVirtual());
                tickDue = untimed ? due(now, nanosToTick) : 0;
            }
            boolean mayPark = waitsForRequestBytes() && server.dispatch().parksIdle() && !Thread.currentThread().isVirtual();
            int n;
            idle = !draining && state == Connection.State.IDLE;
            if (state == Connection.State.DUPLEX && !duplex) {
                duplex = true;
                if (woken) {
                    wakeWriter();
                }
            }
            try {
                int timeout = timeoutMillis(nanosToTick);
                if (state == Connection.State.HANDLING) {
                    timeout = Math.min(timeout, HANDLING_READ_MILLIS);
                } else if (untimed) {
                    timeout = 0;
                }
                // a keep-alive client's next request (or the rest of one) usually follows at once; a client
                // silent for longer, idle or stalled inside a request, gives its thread back
                socket.setSoTimeout(mayPark ? Math.min(PARK_AFTER_MILLIS, timeout) : timeout);
                n = reads.readFrom(in);
            } catch (SocketTimeoutException e) {
                if (mayPark) {
                    Thread.ofVirtual().name(thread.getName() + "-idle").start(this::awaitRequest);
                    return true;
                }
                // the next tick applies whichever deadline passed
                continue;
            } finally {
                idle = false;
            }
            synchronized (conn) {
                tickDue = 0;
                if (n < 0) {
                    conn.endOfInput();
                } else if (n > 0) {
                    if (server.isClosing() || server.dispatch().saturated()) {
                        conn.closeAfterResponse();
                    }
                    conn.received(reads.filled(n));
                }
            }
        }
    }

    /**
     * Starts the writer unless one runs. Under this loop's monitor, as the writer's {@link #retire()}
     * is: a wakeup either finds it running, and it sees the flag before it ends, or finds none.
     */
    private void wakeWriter() {
        synchronized (this) {
            if (writer == null && !ended) {
                // published before it runs, so that a wakeup meanwhile does not start a second one
                Thread w = Thread.ofVirtual().name(thread.getName() + "-writer").unstarted(this::writeWhileReading);
                writer = w;
                w.start();
            }
        }
    }

    /**
     * The writer ends when nothing is left for it, so an idle socket holds no parked thread (its
     * stack, about 1 KiB per connection) between its wakeups and deadlines.
     *
     * @return true when it may end: nothing was woken or ticked since its last round
     */
    private boolean retire() {
        synchronized (this) {
            if (woken || tickQueued) {
                return false;
            }
            writer = null;
            return true;
        }
    }

    /**
     * The writer of a duplex connection (an open WebSocket, an event stream), while this loop's
     * thread blocks in its read: what other threads send reaches the client at once, and the ticks
     * the watchdog hands over run. Each round takes the connection's lock, so the core is never
     * called from two threads at once; a write that blocks holds the reader back, which is the
     * back-pressure wanted. It ends once nothing is left for it, or with the loop, and closes the
     * socket when the core ends the connection, so that the blocked read ends.
     */
    private void writeWhileReading() {
        try {
            while (!ended) {
                boolean tick = tickQueued;
                if (!woken && !tick) {
                    if (retire()) {
                        return;
                    }
                    continue;
                }
                boolean over = writeRound(tick);
                if (tick) {
                    tickQueued = false;
                }
                if (over) {
                    return;
                }
            }
        } catch (Throwable t) {
            writeFailed(t);
        }
    }

    /**
     * One round of the thread writing beside the reader, under the connection's lock: resumes after
     * a wakeup, ticks when asked to, writes, and closes the socket when the core ends the connection,
     * so that the blocked read ends.
     *
     * @return true when the loop is over for this thread: ended, or its socket closed
     */
    private boolean writeRound(boolean tick) throws IOException {
        Next next;
        synchronized (conn) {
            if (ended) {
                return true;
            }
            if (woken) {
                woken = false;
                conn.resume();
            }
            long now = System.nanoTime();
            if (tick) {
                drainIfClosing();
                conn.tick(now);
            }
            next = flush();
            if (tickDue != 0) {
                // the reader still blocks in its untimed read: the watchdog ticks at the new deadline
                now = System.nanoTime();
                tickDue = due(now, conn.nanosToTick(now));
            }
            // a linger the reader has not begun: only its input could end it, and it may be blocked in a read for long
            if (next == Next.LINGER && outputShut) {
                return false;
            }
        }
        if (next == Next.CLOSE || next == Next.LINGER) {
            closeNow();
            return true;
        }
        return false;
    }

    private void writeFailed(Throwable t) {
        if (t instanceof IOException) {
            log.debug("connection {} ended while writing: {}", socket.getRemoteSocketAddress(), t.toString());
            closeNow();
        } else {
            closeNow();
            failed("connection failed while writing; closing it", t);
        }
    }

    /**
     * From the server's watchdog: hands a due tick of a connection whose thread reads with no
     * timeout to the writer, starting one if none runs; it never blocks, as a tick may write.
     * Once the server closes, such a connection ticks at once, so that it drains.
     */
    void tickIfDue(long now) {
        long due = tickDue;
        if (due == 0 || tickQueued || (now - due < 0 && (draining || !server.isClosing()))) {
            return;
        }
        tickQueued = true;
        wakeWriter();
    }

    /** The nanoTime at which a tick is due, never 0 (which {@link #tickDue} keeps for none). */
    private static long due(long now, long nanosToTick) {
        long due = now + nanosToTick;
        return due == 0 ? 1 : due;
    }

    /**
     * The connection lingers: shuts its output, once, and on a platform thread (a pool worker, the
     * single thread) hands the linger to a virtual thread (true), for lingering only drops what the
     * peer still sends and the platform thread serves on. Called before the tick that starts the
     * linger's clock (its 500 ms of quiet) whenever it can be, so that the clock starts on the thread
     * that reads: started here, a virtual thread that ran late (its carriers busy) found the quiet
     * over at its first tick and closed with the peer's bytes unread, and the kernel reset the
     * connection under its last answer.
     */
    private boolean lingersElsewhere() throws IOException {
        if (outputShut) {
            return false;
        }
        outputShut = true;
        socket.shutdownOutput();
        reads.drop();
        if (Thread.currentThread().isVirtual()) {
            return false;
        }
        Thread.ofVirtual().name(thread.getName() + "-linger").start(this);
        return true;
    }

    /**
     * Whether the connection waits only for the peer's bytes: idle between requests, or inside a
     * request not yet complete (request line, headers, or a body the core buffers) with no handler
     * or response in flight.
     */
    private boolean waitsForRequestBytes() {
        Connection.State state = conn.state();
        return (state == Connection.State.IDLE || state == Connection.State.READING_REQUEST) && !conn.next().writes();
    }

    /**
     * Waits for the next request, or the rest of a stalled one, on a virtual thread, holding no pool
     * thread, then hands the loop back to the pool with the bytes that arrived. The connection's
     * deadlines still apply: once one ends the wait (the header timeout's 408, the idle timeout, the
     * drain), the rest of the connection (writing the answer, lingering, closing) runs here, on this
     * virtual thread. A full pool answers 503 and closes, as for a new connection.
     */
    private void awaitRequest() {
        thread = Thread.currentThread();
        boolean endsHere = false;
        try {
            while (true) {
                long now = System.nanoTime();
                conn.tick(now);
                if (drainIfClosing()) {
                    continue;
                }
                if (!waitsForRequestBytes()) {
                    endsHere = conn.next() != Next.CLOSE;
                    break;
                }
                int n;
                idle = !draining && conn.state() == Connection.State.IDLE;
                try {
                    socket.setSoTimeout(timeoutMillis(conn.nanosToTick(now)));
                    n = reads.readFrom(in);
                } catch (SocketTimeoutException e) {
                    continue;
                } finally {
                    idle = false;
                }
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    continue;
                }
                carried = n;
                if (server.dispatch().execute(this)) {
                    return;
                }
                carried = 0;
                server.refuseParked(this, socket);
                conn.closed();
                return;
            }
        } catch (IOException e) {
            log.debug("idle connection {} ended: {}", socket.getRemoteSocketAddress(), e.toString());
        } catch (Throwable t) {
            end();
            failed("idle connection failed; closing it", t);
            return;
        }
        if (endsHere) {
            run();
        } else {
            end();
        }
    }

    /** The connection is over: closes its socket, lets the core free what it holds, and gives back its slot. */
    private void end() {
        closeNow();
        ended = true;
        synchronized (conn) {
            conn.closed();
        }
        server.finished(this);
    }

    /**
     * Logs (counted, {@link FailureLog}) a failure that ends the connection; rethrows a fatal VM
     * error, and keeps an {@link InterruptedException} a handler threw sneakily as the thread's
     * interrupt, for its pool.
     */
    private void failed(String what, Throwable t) {
        server.failures().error(what, socket.getRemoteSocketAddress(), t);
        if (t instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (FailureLog.isFatal(t)) {
            throw (Error) t;
        }
    }

    /**
     * Once the server is closing, drains the connection ({@link Connection#drain()}): what arrives
     * is answered with {@code Connection: close}, and an idle connection ends after a short grace.
     *
     * @return true when it began draining now (tick again: the grace starts)
     */
    private boolean drainIfClosing() {
        if (draining || !server.isClosing()) {
            return false;
        }
        draining = true;
        conn.drain();
        return true;
    }

    /**
     * From the thread closing the server: drains the connection ({@link Connection#drain()} may be
     * called from any thread), so a response whose handler is running now says close; the loop's
     * own {@link #drainIfClosing()} starts the idle grace when it comes round.
     */
    void beginDrain() {
        conn.drain();
        // a loop parked until its next deadline (a streamed body, a handler) ticks now: the drain may end its wait
        LockSupport.unpark(thread);
    }

    /**
     * Parks until the wakeup runs (a handler finished, a body producer handed over a chunk), the
     * server begins to drain, or the core's next deadline ({@code nanosToTick}) is due: no periodic
     * tick, so 10,000 held-open event streams cost no timer wakeups between their events.
     */
    private void await(long nanosToTick) {
        if (!woken) {
            LockSupport.parkNanos(this, Math.max(nanosToTick, MIN_PARK_NANOS));
        }
        woken = false;
        conn.resume();
    }

    private void wake() {
        woken = true;
        if (duplex) {
            wakeWriter();
        }
        LockSupport.unpark(thread);
    }

    /** Writes everything pending (blocking) and answers what to do next. */
    private Next flush() throws IOException {
        Next next = conn.next();
        while (next.writes()) {
            ByteBuffer pending = conn.outbound();
            int len = pending.remaining();
            writeDeadline = System.nanoTime() + server.config().writeTimeout().toNanos();
            try {
                if (pending.hasArray()) {
                    out.write(pending.array(), pending.arrayOffset() + pending.position(), len);
                } else {
                    byte[] copy = new byte[len];
                    pending.get(copy);
                    out.write(copy);
                }
            } finally {
                writeDeadline = 0;
            }
            next = conn.written(len);
        }
        return next;
    }

    private static int timeoutMillis(long nanos) {
        return Math.clamp(TimeUnit.NANOSECONDS.toMillis(nanos + 999_999), 1, Integer.MAX_VALUE);
    }

    /** Closes the socket if the connection waits idle for its next request in a read begun before the drain. */
    void closeIfIdle() {
        if (idle) {
            closeNow();
        }
    }

    /**
     * Closes the socket if a write has been blocked beyond the write timeout. A blocked write cannot
     * be interrupted and its thread cannot tick, so this is the one deadline the strategy keeps itself.
     */
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
