package dev.spindle.nio;

import dev.spindle.core.Connection;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
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
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread, one {@link Selector}, one core {@link Connection} per key: reads into the loop's
 * single read buffer, feeds the connection, and writes what it returns. May also own listening
 * sockets, accepting for itself or handing channels to other loops.
 *
 * <p>Per connection and pass: read (up to {@value #MAX_READS_PER_EVENT} times while the buffer
 * fills), then write everything the connection produced for those reads at once, so a pipelined
 * batch is answered with one write. A write the socket does not take whole switches the key to
 * {@code OP_WRITE} only: no reading until the backlog drains. A connection waiting for a blocking
 * handler has no interest at all; the handler's virtual thread queues it back here
 * ({@link #resumeLater}) and wakes the selector. Timeouts are checked by a scan every
 * {@value #SCAN_MILLIS} ms. A failure on one connection closes that connection only.
 */
final class EventLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(EventLoop.class);

    static final long SCAN_MILLIS = 250;
    private static final long SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(SCAN_MILLIS);
    private static final long SHUTDOWN_SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    static final int MAX_READS_PER_EVENT = 16;
    /** Caps one write call, so the JDK's per-thread temporary direct buffer stays small. */
    private static final int MAX_WRITE = 256 * 1024;
    private static final int MAX_ACCEPTS_PER_EVENT = 64;
    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int LINGER_BYTES = 1 << 20;
    private static final long ACCEPT_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final byte[] TOO_MANY_CONNECTIONS = Connection.rejection(503, "too many connections");
    private static final byte[] REQUEST_TIMEOUT = Connection.rejection(408, "request not received in time");

    final NioServer server;
    private final String name;
    private final Selector selector;
    private final ByteBuffer readBuffer;
    private final Queue<SocketChannel> adopted = new ConcurrentLinkedQueue<>();
    private final Queue<NioConnection> resumed = new ConcurrentLinkedQueue<>();
    private final Consumer<SelectionKey> onKey = this::onKey;
    private final List<Listener> listeners = new ArrayList<>(1);
    private final long idleNanos;
    private final long headerNanos;
    private final long writeNanos;
    private final int highWater;
    private final boolean busyPoll;
    private final int busyPollSpins;

    private NioConnection[] connections = new NioConnection[64];
    private int size;
    /** The loop's clock, refreshed once per pass and per selected key. */
    private long now;
    private long nextScan;
    private boolean shuttingDown;
    private volatile boolean terminated;

    /** A listening socket this loop accepts from; {@code targets} null means "keep them". */
    private static final class Listener {
        final ServerSocketChannel channel;
        final EventLoop[] targets;
        SelectionKey key;
        int next;
        long pausedUntil;

        Listener(ServerSocketChannel channel, EventLoop[] targets) {
            this.channel = channel;
            this.targets = targets;
        }
    }

    EventLoop(NioServer server, String name) throws IOException {
        this.server = server;
        this.name = name;
        this.selector = Selector.open();
        var config = server.config();
        this.readBuffer = config.directBuffers() ? ByteBuffer.allocateDirect(config.readBufferSize()) : ByteBuffer.allocate(config.readBufferSize());
        this.idleNanos = config.idleTimeout().toNanos();
        this.headerNanos = config.headerTimeout().toNanos();
        this.writeNanos = config.writeTimeout().toNanos();
        this.highWater = config.writeHighWaterMark();
        this.busyPoll = config.busyPoll();
        this.busyPollSpins = server.busyPollSpins();
    }

    String name() {
        return name;
    }

    /**
     * Makes this loop accept from {@code channel} (before the loop starts), handing accepted
     * channels round-robin to {@code targets}, or keeping them when {@code targets} is null.
     */
    void listen(ServerSocketChannel channel, EventLoop[] targets) throws IOException {
        Listener listener = new Listener(channel, targets);
        listener.key = channel.register(selector, SelectionKey.OP_ACCEPT, listener);
        listeners.add(listener);
    }

    /** Releases the selector of a loop that never ran (failed start). */
    void discard() {
        terminated = true;
        try {
            selector.close();
        } catch (IOException e) {
            log.trace("selector close failed: {}", e.toString());
        }
    }

    void wakeup() {
        selector.wakeup();
    }

    /** From another loop's thread: serve this accepted channel (already counted and non-blocking). */
    void handOff(SocketChannel channel) {
        adopted.offer(channel);
        selector.wakeup();
        if (terminated) {
            closeAdopted();
        }
    }

    /** From a blocking handler's thread: the connection can go on; the loop resumes and writes it. */
    void resumeLater(NioConnection connection) {
        resumed.offer(connection);
        selector.wakeup();
    }

    @Override
    public void run() {
        now = System.nanoTime();
        nextScan = now + SCAN_NANOS;
        try {
            while (true) {
                try {
                    if (!shuttingDown && server.isClosing()) {
                        beginShutdown();
                    }
                    if (shuttingDown && (size == 0 || now - server.drainDeadline() >= 0)) {
                        break;
                    }
                    select(nextScan - now);
                    now = System.nanoTime();
                    runQueues();
                    if (now - nextScan >= 0) {
                        scan();
                        nextScan = now + (shuttingDown ? SHUTDOWN_SCAN_NANOS : SCAN_NANOS);
                    }
                } catch (ClosedSelectorException e) {
                    log.error("{}: selector closed under the loop", name);
                    break;
                } catch (Throwable t) {
                    log.error("{}: unexpected failure; the loop goes on", name, t);
                    now = System.nanoTime();
                    backOff();
                }
            }
        } finally {
            terminate();
        }
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
        return !adopted.isEmpty() || !resumed.isEmpty();
    }

    private void runQueues() {
        SocketChannel channel;
        while ((channel = adopted.poll()) != null) {
            adopt(channel);
        }
        NioConnection c;
        while ((c = resumed.poll()) != null) {
            if (c.state != NioConnection.OPEN) {
                continue;
            }
            try {
                c.lastActivity = now;
                c.core.resume();
                flush(c);
            } catch (IOException | RuntimeException e) {
                failed(c, e);
            }
        }
    }

    private void onKey(SelectionKey key) {
        now = System.nanoTime();
        Object attachment = key.attachment();
        if (attachment instanceof NioConnection c) {
            try {
                int ready = key.readyOps();
                if (c.state == NioConnection.LINGERING) {
                    drainLinger(c);
                    return;
                }
                if ((ready & SelectionKey.OP_WRITE) != 0) {
                    flush(c);
                }
                if ((ready & SelectionKey.OP_READ) != 0 && c.state == NioConnection.OPEN && (c.interest & SelectionKey.OP_READ) != 0) {
                    read(c);
                }
            } catch (IOException | RuntimeException e) {
                failed(c, e);
            }
        } else if (attachment instanceof Listener listener) {
            accept(listener);
        }
    }

    private void failed(NioConnection c, Exception e) {
        if (e instanceof IOException || e instanceof java.nio.channels.CancelledKeyException) {
            log.debug("{}: connection {} ended: {}", name, c, e.toString());
        } else {
            log.warn("{}: connection {} failed; closing it", name, c, e);
        }
        close(c);
    }


    private void read(NioConnection c) throws IOException {
        ByteBuffer buf = readBuffer;
        Connection core = c.core;
        for (int reads = 1; ; reads++) {
            buf.clear();
            int n = c.channel.read(buf);
            if (n < 0) {
                c.inputEnded = true;
                core.endOfInput();
                break;
            }
            if (n == 0) {
                break;
            }
            c.lastActivity = now;
            buf.flip();
            core.received(buf);
            if (n < buf.capacity() || reads >= MAX_READS_PER_EVENT || !core.wantsInput()) {
                break;
            }
        }
        flush(c);
    }

    /**
     * Writes what the connection holds, resuming it when it had paused at the high-water mark,
     * until it has nothing more or the socket is full; then sets the key's interest (or closes).
     */
    private void flush(NioConnection c) throws IOException {
        Connection core = c.core;
        while (core.hasOutbound()) {
            if (core.outboundBytes() >= highWater) {
                c.paused = true;
            }
            ByteBuffer out = core.outbound();
            int total = 0;
            boolean blocked = false;
            while (out.hasRemaining()) {
                int limit = out.limit();
                int chunkEnd = out.position() + Math.min(limit - out.position(), MAX_WRITE);
                out.limit(chunkEnd);
                int n = c.channel.write(out);
                out.limit(limit);
                total += n;
                if (out.position() < chunkEnd) {
                    blocked = true;
                    break;
                }
            }
            if (total > 0) {
                core.written(total);
                c.lastActivity = now;
            }
            if (blocked) {
                if (c.writeDeadline == 0) {
                    c.writeDeadline = now + writeNanos;
                }
                c.requestStarted = 0;
                setInterest(c, SelectionKey.OP_WRITE);
                return;
            }
            c.writeDeadline = 0;
            if (c.paused) {
                c.paused = false;
                core.resume();
            }
        }
        if (core.shouldClose()) {
            finish(c);
            return;
        }
        if (shuttingDown && core.isIdle()) {
            close(c);
            return;
        }
        boolean reading = core.wantsInput() && !c.inputEnded;
        if (reading && core.hasPartialRequest()) {
            if (c.requestStarted == 0) {
                c.requestStarted = now;
            }
        } else {
            c.requestStarted = 0;
        }
        setInterest(c, reading ? SelectionKey.OP_READ : 0);
    }

    private static void setInterest(NioConnection c, int ops) {
        if (c.interest != ops) {
            c.key.interestOps(ops);
            c.interest = ops;
        }
    }


    /** Everything is written and the connection is done: close, lingering unless the peer already closed. */
    private void finish(NioConnection c) {
        if (c.inputEnded) {
            close(c);
        } else {
            linger(c);
        }
    }

    /**
     * Half-closes and keeps reading (and discarding) for a moment, so that request bytes the
     * server never read do not make the kernel reset the connection and destroy the response.
     */
    private void linger(NioConnection c) {
        try {
            c.channel.shutdownOutput();
        } catch (IOException e) {
            close(c);
            return;
        }
        c.state = NioConnection.LINGERING;
        c.lingerDeadline = now + LINGER_NANOS;
        c.lingerBytes = 0;
        setInterest(c, SelectionKey.OP_READ);
    }

    private void drainLinger(NioConnection c) throws IOException {
        ByteBuffer buf = readBuffer;
        while (true) {
            buf.clear();
            int n = c.channel.read(buf);
            if (n == 0) {
                return;
            }
            if (n < 0) {
                close(c);
                return;
            }
            c.lingerBytes += n;
            if (c.lingerBytes > LINGER_BYTES) {
                close(c);
                return;
            }
        }
    }

    private void close(NioConnection c) {
        if (c.state == NioConnection.CLOSED) {
            return;
        }
        c.state = NioConnection.CLOSED;
        if (c.key != null) {
            c.key.cancel();
        }
        NioServer.closeQuietly(c.channel);
        remove(c);
        if (c.counted) {
            server.releaseConnection();
        }
    }


    private void accept(Listener listener) {
        for (int i = 0; i < MAX_ACCEPTS_PER_EVENT; i++) {
            SocketChannel channel;
            try {
                channel = listener.channel.accept();
            } catch (IOException e) {
                if (listener.channel.isOpen()) {
                    // e.g. out of file descriptors: stop selecting OP_ACCEPT for a moment instead of spinning
                    log.warn("{}: accept failed: {}; pausing accepts briefly", name, e.toString());
                    listener.key.interestOps(0);
                    listener.pausedUntil = now + ACCEPT_BACKOFF_NANOS;
                }
                return;
            }
            if (channel == null) {
                return;
            }
            try {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            } catch (IOException e) {
                NioServer.closeQuietly(channel);
                continue;
            }
            if (!server.tryAcquireConnection()) {
                reject(channel);
                continue;
            }
            EventLoop target = this;
            if (listener.targets != null) {
                target = listener.targets[listener.next];
                listener.next = listener.next + 1 == listener.targets.length ? 0 : listener.next + 1;
            }
            if (target == this) {
                adopt(channel);
            } else {
                target.handOff(channel);
            }
        }
    }

    /** Starts serving a counted, non-blocking channel on this loop. */
    private void adopt(SocketChannel channel) {
        if (shuttingDown) {
            server.releaseConnection();
            NioServer.closeQuietly(channel);
            return;
        }
        try {
            NioConnection c = new NioConnection(this, channel, true, true);
            c.lastActivity = now;
            c.key = channel.register(selector, SelectionKey.OP_READ, c);
            c.interest = SelectionKey.OP_READ;
            add(c);
        } catch (IOException | RuntimeException e) {
            log.debug("{}: cannot register a connection: {}", name, e.toString());
            server.releaseConnection();
            NioServer.closeQuietly(channel);
        }
    }

    /** Answers 503 on a fresh socket (the small response fits its send buffer), then lingers. */
    private void reject(SocketChannel channel) {
        log.debug("{}: too many connections; rejecting {}", name, channel);
        try {
            channel.write(ByteBuffer.wrap(TOO_MANY_CONNECTIONS));
            channel.shutdownOutput();
            NioConnection c = new NioConnection(this, channel, false, false);
            c.state = NioConnection.LINGERING;
            c.lingerDeadline = now + LINGER_NANOS;
            c.key = channel.register(selector, SelectionKey.OP_READ, c);
            c.interest = SelectionKey.OP_READ;
            add(c);
        } catch (IOException | RuntimeException e) {
            NioServer.closeQuietly(channel);
        }
    }

    private void closeAdopted() {
        SocketChannel channel;
        while ((channel = adopted.poll()) != null) {
            server.releaseConnection();
            NioServer.closeQuietly(channel);
        }
    }


    private void scan() {
        for (Listener listener : listeners) {
            if (listener.key.isValid() && listener.key.interestOps() == 0 && now - listener.pausedUntil >= 0) {
                listener.key.interestOps(SelectionKey.OP_ACCEPT);
            }
        }
        // backwards, so that closing (swap-removal) never skips one
        for (int i = size - 1; i >= 0; i--) {
            if (i >= size) {
                continue;
            }
            NioConnection c = connections[i];
            try {
                check(c);
            } catch (IOException | RuntimeException e) {
                failed(c, e);
            }
        }
    }

    private void check(NioConnection c) throws IOException {
        if (c.state == NioConnection.LINGERING) {
            if (now - c.lingerDeadline >= 0) {
                close(c);
            }
            return;
        }
        if (c.writeDeadline != 0) {
            if (now - c.writeDeadline >= 0) {
                log.debug("{}: write timeout on {}", name, c);
                close(c);
            }
            return;
        }
        Connection core = c.core;
        if (core.isIdle()) {
            if (shuttingDown || now - c.lastActivity >= idleNanos) {
                close(c);
            }
            return;
        }
        if (c.requestStarted != 0 && now - c.requestStarted >= headerNanos) {
            log.debug("{}: request timeout on {}", name, c);
            if (!core.hasOutbound()) {
                c.channel.write(ByteBuffer.wrap(REQUEST_TIMEOUT));
            }
            linger(c);
        }
    }

    /** Stops accepting, closes idle connections and makes busy ones close after their response. */
    private void beginShutdown() {
        shuttingDown = true;
        for (Listener listener : listeners) {
            listener.key.cancel();
            NioServer.closeQuietly(listener.channel);
        }
        listeners.clear();
        for (int i = size - 1; i >= 0; i--) {
            if (i >= size) {
                continue;
            }
            NioConnection c = connections[i];
            if (c.state != NioConnection.OPEN) {
                continue;
            }
            if (c.core.isIdle()) {
                close(c);
            } else {
                c.core.closeAfterResponse();
            }
        }
        nextScan = now;
    }

    private void terminate() {
        terminated = true;
        int busy = 0;
        for (int i = size - 1; i >= 0; i--) {
            if (i >= size) {
                continue;
            }
            if (connections[i].state == NioConnection.OPEN) {
                busy++;
            }
            close(connections[i]);
        }
        if (busy > 0) {
            log.warn("{}: {} connections still busy after the drain timeout; closed them", name, busy);
        }
        for (Listener listener : listeners) {
            NioServer.closeQuietly(listener.channel);
        }
        listeners.clear();
        closeAdopted();
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
        }
        c.index = size;
        connections[size++] = c;
    }

    private void remove(NioConnection c) {
        int i = c.index;
        if (i < 0) {
            return;
        }
        NioConnection last = connections[--size];
        connections[i] = last;
        last.index = i;
        connections[size] = null;
        c.index = -1;
    }
}
