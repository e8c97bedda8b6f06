// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.EventLoopServer;
import dev.spindle.core.spi.FailureLog;
import dev.spindle.core.spi.LoopContext;
import dev.spindle.core.spi.LoopTasks;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.spi.OutboundLoop;
import dev.spindle.core.spi.OutboundLoops;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread, one {@link Selector}, one core {@link Connection} per key: reads into the loop's
 * single read buffer, feeds the connection, writes what it hands out and acts on its answers. May
 * also own listening sockets ({@link LoopListener}), accepting for itself or handing channels to
 * other loops. It sees its server only through a {@link LoopContext}.
 *
 * <p>Per connection and pass: read (up to {@value #MAX_READS_PER_EVENT} times while the buffer
 * fills and the connection wants input), then write everything the connection produced for those
 * reads at once, so a pipelined batch is answered with one write. After every call into the core
 * (received, endOfInput, resume, tick) the same routine runs ({@link #service}): write the
 * outbound bytes, or the outbound file region with {@code transferTo}; close when the core says
 * so; shut the output down once when it lingers; read only while it wants input; select
 * {@code OP_WRITE} while output is pending. A connection waiting for a handler or a streamed body
 * has no interest at all until its wakeup queues it back here ({@link #resumeLater}). Every
 * {@value #SCAN_MILLIS} ms a scan ticks the connections whose tick is due, which applies the
 * core's timeouts: one the loop served since its last tick (a read, a write, a wakeup) is due at
 * once, as the core starts some clocks at a tick; after a tick, an idle or duplex connection with
 * nothing to write is due when its {@link Connection#nanosToTick} says (at most
 * {@value #MAX_TICK_SECONDS} s on), and any other one at once. A loop that drains ticks them all.
 *
 * <p>Any failure while serving one connection, {@link Error}s such as an {@link OutOfMemoryError}
 * included, closes that connection only (which frees what it held) and the loop serves on; a VM
 * error that leaves the JVM untrustworthy ({@link FailureLog#isFatal}) is rethrown once the
 * connection is closed, and ends the loop. Failures that repeat are logged once with their stack
 * and then counted ({@link FailureLog}), per connection failure and per loop-level failure alike.
 *
 * <p>Shutdown drops nothing the kernel accepted: a loop that begins to drain first accepts what its
 * listening sockets have queued, then closes them (closing would reset the queue); a channel that
 * reaches a draining loop, from its own listener or handed over, is served like the others, in drain
 * mode from the start. A loop ends once it has no connection left and no other loop can still hand
 * it one (every loop accepting for it has closed its listening sockets), or at the drain deadline.
 *
 * <p>It is also an {@link OutboundLoop}: it opens sockets of its own ({@link OutboundSockets}) and,
 * once they are connected, serves them through the same routine as accepted ones, and it runs tasks
 * other threads give it ({@link #execute}). Outbound sockets are not drained: they stay open while
 * the accepted connections drain, for the calls those may still make, and close when the loop ends.
 */
final class EventLoop implements EventLoopServer.Loop, OutboundLoop {
    private static final Logger log = LoggerFactory.getLogger(EventLoop.class);

    static final long SCAN_MILLIS = 250;
    static final long SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(SCAN_MILLIS);
    private static final long SHUTDOWN_SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Bounds how long a scan leaves a connection unticked, whatever its nanosToTick says. */
    static final long MAX_TICK_SECONDS = 10;
    private static final long MAX_TICK_NANOS = TimeUnit.SECONDS.toNanos(MAX_TICK_SECONDS);
    static final int MAX_READS_PER_EVENT = 16;
    /** Caps one write call, so the JDK's per-thread temporary direct buffer stays small. */
    private static final int MAX_WRITE = 256 * 1024;
    /** Caps what one connection writes per pass, so a large streamed body cannot hold the loop. */
    private static final long MAX_WRITE_PER_PASS = 4L * MAX_WRITE;
    private static final int MAX_ACCEPTS_PER_EVENT = 64;
    /** Caps the tasks run per pass, so tasks that queue more tasks cannot keep the loop from its sockets. */
    private static final int MAX_TASKS_PER_PASS = 1024;

    private final LoopContext context;
    private final String name;
    private final Selector selector;
    private final ByteBuffer readBuffer;
    private final Queue<SocketChannel> adopted = new ConcurrentLinkedQueue<>();
    /** Listening sockets of other loops that hand channels to this one and are still open. */
    private final AtomicInteger openFeeders = new AtomicInteger();
    private final Queue<NioConnection> resumed = new ConcurrentLinkedQueue<>();
    /** Other threads' tasks and outbound wakeups; stopped as the loop terminates (or is discarded). */
    private final LoopTasks tasks;
    private final OutboundSockets outbound;
    private final Consumer<SelectionKey> onKey = this::onKey;
    private final Consumer<OutboundConnection> onResumed = this::resumeOutbound;
    private final List<LoopListener> listeners = new ArrayList<>(1);
    private final boolean busyPoll;
    private final int busyPollSpins;
    /** Connection failures and loop-level failures, each kind logged once per window with a count. */
    private final FailureLog failures = new FailureLog(log);

    private NioConnection[] connections = new NioConnection[64];
    /** When each of {@link #connections} must be ticked next ({@code System.nanoTime()}), by index. */
    private long[] tickDue = new long[64];
    private int size;
    /** The loop's clock, refreshed once per pass and per selected key. */
    private long now;
    private long nextScan;
    private boolean shuttingDown;
    /**
     * The loops sharing the port by {@code SO_REUSEPORT} that have not drained their connections
     * yet, or null when this loop's listener is the port's only one: see {@link #closeListeners()}.
     */
    private AtomicInteger undrainedSharers;
    private volatile Thread thread;

    EventLoop(LoopContext context, String name, NioSettings settings) throws IOException {
        this.context = context;
        this.name = name;
        this.selector = Selector.open();
        var config = context.config();
        this.readBuffer = settings.directBuffers() ? ByteBuffer.allocateDirect(config.readBufferSize()) : ByteBuffer.allocate(config.readBufferSize());
        this.busyPoll = settings.busyPoll();
        this.busyPollSpins = settings.busyPollSpins();
        this.tasks = new LoopTasks(name, failures, MAX_TASKS_PER_PASS);
        this.outbound = new OutboundSockets(this, selector);
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * Makes this loop accept from {@code channel} (before the loop starts), handing accepted
     * channels round-robin to {@code targets}, or keeping them when {@code targets} is null.
     */
    void listen(ServerSocketChannel channel, EventLoop[] targets) throws IOException {
        listeners.add(new LoopListener(this, context, selector, channel, targets));
    }

    /**
     * Makes this loop one of several with a listening socket of their own on the same port
     * ({@code SO_REUSEPORT}), {@code undrained} counting those that have not begun to drain.
     */
    void sharePort(AtomicInteger undrained) {
        this.undrainedSharers = undrained;
    }

    /** Releases the selector of a loop that never ran (failed start). */
    @Override
    public void discard() {
        tasks.stop();
        try {
            selector.close();
        } catch (IOException e) {
            log.trace("selector close failed: {}", e.toString());
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    /** From another loop's thread: serve this accepted channel (already counted and non-blocking). */
    void handOff(SocketChannel channel) {
        adopted.offer(channel);
        selector.wakeup();
        if (tasks.stopped()) {
            closeAdopted();
        }
    }

    /** Before the loops start: a listening socket will hand this loop channels until {@link #feederClosed}. */
    void feederOpened() {
        openFeeders.incrementAndGet();
    }

    /**
     * From another loop's thread, after its last {@link #handOff}: a listening socket that fed this
     * loop is closed. Decremented after the hand-offs, so a loop that reads zero sees them all queued.
     */
    void feederClosed() {
        openFeeders.decrementAndGet();
        selector.wakeup();
    }

    /** The core's wakeup, from any thread: the connection has work; the loop resumes it. */
    void resumeLater(NioConnection connection) {
        if (tasks.stopped()) {
            return;
        }
        resumed.offer(connection);
        selector.wakeup();
    }

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    @Override
    public void execute(Runnable task) {
        tasks.execute(task);
        selector.wakeup();
    }

    @Override
    public void connect(InetSocketAddress remote, OutboundConnection connection) {
        outbound.connect(remote, connection, inLoop(), tasks.stopped(), now);
    }

    @Override
    public void resume(OutboundConnection connection) {
        // on the loop's own thread (a client sending from a handler) the loop finds it before it selects again
        if (tasks.resume(connection) && !inLoop()) {
            selector.wakeup();
        }
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        OutboundLoops.bind(this);
        now = System.nanoTime();
        nextScan = now + SCAN_NANOS;
        try {
            while (true) {
                try {
                    if (!shuttingDown && context.isClosing()) {
                        beginShutdown();
                    }
                    if (shuttingDown && !listeners.isEmpty()) {
                        closeListeners();
                    }
                    // a loop whose listener waits for the port's other loops to drain stays to accept
                    if (shuttingDown && listeners.isEmpty() && (drained() || now - context.drainDeadline() >= 0)) {
                        break;
                    }
                    select(Math.min(nextScan - now, outbound.nanosToTick(now)));
                    now = System.nanoTime();
                    runQueues();
                    if (now - nextScan >= 0) {
                        scan();
                        nextScan = now + (shuttingDown ? SHUTDOWN_SCAN_NANOS : SCAN_NANOS);
                    }
                    outbound.tickIfDue(now);
                } catch (ClosedSelectorException e) {
                    log.error("{}: selector closed under the loop", name);
                    break;
                } catch (Throwable t) {
                    if (FailureLog.isFatal(t)) {
                        // an InternalError or UnknownError: serving on from a JVM in doubt could send wrong bytes
                        log.error("{}: the JVM failed under the loop; closing its connections", name, t);
                        throw (Error) t;
                    }
                    failures.error(name + ": unexpected failure; the loop goes on", null, t);
                    now = System.nanoTime();
                    backOff();
                }
            }
        } finally {
            try {
                terminate();
            } finally {
                OutboundLoops.unbind();
            }
        }
    }

    /** Nothing left to serve and nothing more to come: no connection, no open feeder, nothing handed over. */
    private boolean drained() {
        // feeders first: one that reads zero has queued its last hand-off before
        return size == 0 && openFeeders.get() == 0 && adopted.isEmpty();
    }

    private void select(long waitNanos) throws IOException {
        if (busyPoll) {
            for (int i = 0; i < busyPollSpins; i++) {
                if (selector.selectNow(onKey) > 0 || hasQueued()) {
                    return;
                }
                Thread.onSpinWait();
            }
        }
        if (hasQueued()) {
            selector.selectNow(onKey);
            return;
        }
        // select(0) would block forever; round up so the scan is never early by a fraction.
        long millis = Math.max(1, (waitNanos + 999_999) / 1_000_000);
        selector.select(onKey, millis);
    }

    private boolean hasQueued() {
        return !adopted.isEmpty() || !resumed.isEmpty() || tasks.hasQueued();
    }

    private void runQueues() {
        SocketChannel channel;
        while ((channel = adopted.poll()) != null) {
            serve(channel, true);
        }
        NioConnection c;
        while ((c = resumed.poll()) != null) {
            resumeNow(c);
        }
        tasks.runQueued(onResumed);
    }

    private void resumeOutbound(OutboundConnection connection) {
        NioConnection c = outbound.find(connection);
        if (c != null) {
            resumeNow(c);
        }
    }

    private void resumeNow(NioConnection c) {
        if (c.closed) {
            return;
        }
        try {
            service(c, c.core.resume());
        } catch (Throwable t) {
            failed(c, t);
        }
    }

    private void onKey(SelectionKey key) {
        now = System.nanoTime();
        Object attachment = key.attachment();
        if (attachment instanceof NioConnection c) {
            if (c.closed) {
                return;
            }
            if (c.connecting) {
                outbound.finishConnect(c);
                return;
            }
            try {
                Next next = (key.readyOps() & SelectionKey.OP_READ) != 0 && (c.interest & SelectionKey.OP_READ) != 0
                        ? read(c) : c.core.next();
                service(c, next);
            } catch (Throwable t) {
                failed(c, t);
            }
        } else if (attachment instanceof LoopListener listener) {
            listener.accept(MAX_ACCEPTS_PER_EVENT, now);
        }
    }

    /**
     * Closes a connection that failed, whatever the failure: an {@link Error} raised by a handler
     * or by the core (an {@link OutOfMemoryError} buffering its input) left unclosed would fail
     * again on its next readable key, forever. A fatal VM error is rethrown once it is closed.
     * An {@link InterruptedException} a handler threw sneakily is not turned back into the
     * thread's interrupt: the loop stops through its server's closing flag, and an interrupted
     * thread's {@code select()} would return at once, every time.
     */
    void failed(NioConnection c, Throwable t) {
        if (t instanceof IOException || t instanceof CancelledKeyException) {
            log.debug("{}: connection {} ended: {}", name, c, t.toString());
        } else {
            failures.warn(name + ": connection failed; closing it", c, t);
        }
        close(c);
        if (FailureLog.isFatal(t)) {
            throw (Error) t;
        }
    }

    private Next read(NioConnection c) throws IOException {
        ByteBuffer buf = readBuffer;
        Connection core = c.core;
        for (int reads = 1; ; reads++) {
            buf.clear();
            int n = c.channel.read(buf);
            if (n < 0) {
                return core.endOfInput();
            }
            if (n == 0) {
                return core.next();
            }
            Next next = core.received(buf.flip());
            if (n < buf.capacity() || reads >= MAX_READS_PER_EVENT || !next.reads()) {
                return next;
            }
        }
    }

    /**
     * What follows every call into the core, given its answer: writes what it holds until it has
     * nothing more, the socket is full or the pass's share is used; then closes, shuts the output
     * down for lingering, or sets the key's interest, as the core answers. An outbound socket still
     * connecting is only closed, if its core says so.
     */
    void service(NioConnection c, Next next) throws IOException {
        if (c.connecting) {
            if (next == Next.CLOSE) {
                close(c);
            } else {
                outbound.scheduleTick(c.outbound, now);
            }
            return;
        }
        Connection core = c.core;
        long budget = MAX_WRITE_PER_PASS;
        while (budget > 0 && next.writes()) {
            long wanted;
            long n;
            Connection.FileRegion file = core.outboundFile();
            if (file != null) {
                wanted = Math.min(file.count(), MAX_WRITE);
                n = file.channel().transferTo(file.position(), wanted, c.channel);
                if (n == 0 && file.position() >= file.channel().size()) {
                    throw new IOException("the file being sent became shorter than its announced length");
                }
            } else {
                ByteBuffer out = core.outbound();
                int limit = out.limit();
                wanted = Math.min(limit - out.position(), MAX_WRITE);
                out.limit(out.position() + (int) wanted);
                n = c.channel.write(out);
                out.limit(limit);
            }
            if (n > 0) {
                next = core.written((int) n);
                budget -= n;
            }
            if (n < wanted) {
                break;
            }
        }
        if (next == Next.CLOSE) {
            close(c);
            return;
        }
        if (next == Next.LINGER && !c.outputShut) {
            c.outputShut = true;
            c.channel.shutdownOutput();
        }
        int ops = (next.reads() ? SelectionKey.OP_READ : 0) | (next.writes() ? SelectionKey.OP_WRITE : 0);
        if (c.interest != ops) {
            c.key.interestOps(ops);
            c.interest = ops;
        }
        if (c.outbound != null) {
            outbound.scheduleTick(c.outbound, now);
        } else if (c.index >= 0) {
            // the call may have started a clock that the core sets at its next tick
            tickDue[c.index] = now;
        }
    }

    void close(NioConnection c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        if (c.key != null) {
            c.key.cancel();
        }
        NioServer.closeQuietly(c.channel);
        if (c.outbound != null) {
            outbound.remove(c.outbound);
        } else {
            remove(c);
        }
        if (c.counted) {
            context.releaseConnection();
        }
        try {
            c.core.closed();
        } catch (Throwable t) {
            // the socket and the slot are already given back; a core that failed may fail again here
            failures.warn(name + ": releasing a closed connection failed", c, t);
        }
    }

    /**
     * Starts serving a non-blocking channel on this loop: a counted one with a new core
     * connection, an uncounted one (beyond the limit) with the core's rejection. Once the loop is
     * draining, the connection drains from the start: its client connected before the listening
     * socket closed and may have sent its request already, which is answered with a close.
     */
    void serve(SocketChannel channel, boolean counted) {
        NioConnection c = new NioConnection(channel, counted, this);
        try {
            c.core = counted ? context.newConnection(c) : context.rejectedConnection();
            c.core.transferFiles(true);
            if (shuttingDown) {
                c.core.drain();
            }
            c.key = channel.register(selector, 0, c);
        } catch (Throwable t) {
            if (t instanceof IOException) {
                log.debug("{}: cannot register a connection: {}", name, t.toString());
            } else {
                failures.warn(name + ": cannot serve a new connection; closing it", channel, t);
            }
            release(channel, counted);
            if (FailureLog.isFatal(t)) {
                throw (Error) t;
            }
            return;
        }
        add(c);
        try {
            service(c, c.core.next());
        } catch (Throwable t) {
            failed(c, t);
        }
    }

    private void release(SocketChannel channel, boolean counted) {
        if (counted) {
            context.releaseConnection();
        }
        NioServer.closeQuietly(channel);
    }

    private void closeAdopted() {
        SocketChannel channel;
        while ((channel = adopted.poll()) != null) {
            release(channel, true);
        }
    }

    private void scan() {
        for (LoopListener listener : listeners) {
            listener.resumeIfDue(now);
        }
        // backwards, so that closing (swap-removal) never skips one
        for (int i = size - 1; i >= 0; i--) {
            if (i >= size) {
                continue;
            }
            if (!shuttingDown && tickDue[i] - now > 0) {
                continue;
            }
            NioConnection c = connections[i];
            try {
                service(c, c.core.tick(now));
                if (!c.closed) {
                    tickDue[c.index] = dueAfterTick(c);
                }
            } catch (Throwable t) {
                failed(c, t);
            }
        }
        failures.flush();
    }

    /**
     * When a connection just ticked (and served) must be ticked again. Only an idle or duplex one
     * with nothing to write waits for its {@link Connection#nanosToTick}: that covers all of its
     * deadlines (idle, drain grace, TLS handshake; a WebSocket's pings, idle and close timeouts),
     * while another state may have one it leaves out (a write timeout, a producer's).
     */
    private long dueAfterTick(NioConnection c) {
        if ((c.interest & SelectionKey.OP_WRITE) != 0) {
            return now;
        }
        Connection.State state = c.core.state();
        if (state != Connection.State.IDLE && state != Connection.State.DUPLEX) {
            return now;
        }
        return now + Math.clamp(c.core.nanosToTick(now), 1, MAX_TICK_NANOS);
    }

    /**
     * Stops accepting and drains every connection ({@link dev.spindle.core.spi.Connection#drain()}):
     * busy ones close after their response, idle ones after one more or a short grace. What the
     * listening sockets have queued is accepted first and drained the same way: closing a listening
     * socket resets the connections in its queue, whose clients may have sent their request.
     */
    private void beginShutdown() {
        shuttingDown = true;
        for (int i = size - 1; i >= 0; i--) {
            if (i >= size) {
                continue;
            }
            connections[i].core.drain();
        }
        if (undrainedSharers != null) {
            undrainedSharers.decrementAndGet();
        }
        closeListeners();
        nextScan = now;
    }

    /**
     * Closes this loop's listening sockets, once every loop sharing the port has drained (or at the
     * drain deadline). A client sees the port refuse once the last socket closes, so by then every
     * connection it has is draining: had one loop closed its socket before another loop began to
     * drain, a request sent on that loop's idle connection after the refusal would be answered as
     * if nothing were closing. Until then the socket still accepts, and what it accepts drains.
     */
    private void closeListeners() {
        if (undrainedSharers != null && undrainedSharers.get() > 0 && now - context.drainDeadline() < 0) {
            return;
        }
        int queueBound = context.config().backlog();
        for (LoopListener listener : listeners) {
            // bounded by the queue's size: a client connecting now is refused once the socket closes
            listener.accept(queueBound, now);
            listener.close();
        }
        listeners.clear();
    }

    private void terminate() {
        tasks.stop();
        int busy = 0;
        for (int i = size - 1; i >= 0; i--) {
            if (i >= size) {
                continue;
            }
            if (!connections[i].core.state().finished()) {
                busy++;
            }
            close(connections[i]);
        }
        if (busy > 0) {
            log.warn("{}: {} connections still busy after the drain timeout; closed them", name, busy);
        }
        int opened = outbound.closeAll();
        if (opened > 0) {
            log.debug("{}: closed {} outbound connections", name, opened);
        }
        for (LoopListener listener : listeners) {
            listener.close();
        }
        listeners.clear();
        closeAdopted();
        // what was accepted before the stop still runs; a connect it makes fails at once
        tasks.runRemaining();
        resumed.clear();
        try {
            selector.close();
        } catch (IOException e) {
            log.debug("{}: selector close failed: {}", name, e.toString());
        }
    }

    private static void backOff() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void add(NioConnection c) {
        if (size == connections.length) {
            connections = Arrays.copyOf(connections, size * 2);
            tickDue = Arrays.copyOf(tickDue, size * 2);
        }
        c.index = size;
        tickDue[size] = now;
        connections[size++] = c;
    }

    private void remove(NioConnection c) {
        int i = c.index;
        if (i < 0) {
            return;
        }
        NioConnection last = connections[--size];
        connections[i] = last;
        tickDue[i] = tickDue[size];
        last.index = i;
        connections[size] = null;
        c.index = -1;
    }
}
