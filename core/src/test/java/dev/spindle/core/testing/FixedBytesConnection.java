// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A byte-level {@link OutboundConnection} for the strategies' tests of their outbound loops: sends
 * fixed bytes once connected (and more handed over by {@link #sendLater}, picked up at
 * {@code resume}), collects what comes back, closes at the end of input or at its deadline.
 * Records its callbacks and the threads they came on. Not an HTTP client. {@link #written} counts
 * from where {@link #outbound()} last handed the buffer out, as the {@link Connection} contract
 * says, so it holds whether the strategy's write moved the buffer (NIO) or copied from it and left
 * it as it was (io_uring).
 *
 * <p>On the strategies' module path, their tests need
 * {@code --add-exports dev.spindle.core/dev.spindle.core.spi=ALL-UNNAMED}: this jar is on the class
 * path there, and the strategy contract is exported to the strategy modules only.
 */
public final class FixedBytesConnection implements OutboundConnection {
    /** The callbacks that matter, in order: connected, connectFailed, resume, endOfInput, timeout, closed, ... */
    public final List<String> events = new CopyOnWriteArrayList<>();
    /** The threads any callback came on. */
    public final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    /** Completed at {@link #connected()}. */
    public final CompletableFuture<Void> connected = new CompletableFuture<>();
    /** Completed at {@link #closed()}. */
    public final CompletableFuture<Void> closed = new CompletableFuture<>();
    /** How many times it was ticked. */
    public final AtomicInteger ticks = new AtomicInteger();
    /** How many ticks came before the loop first asked for the bytes to send; -1 until it did. */
    public volatile int ticksBeforeSending = -1;
    /** What {@link #connectFailed} was told, or null. */
    public volatile IOException failure;
    private final ByteArrayOutputStream in = new ByteArrayOutputStream();
    private final long deadline;
    private final AtomicReference<byte[]> later = new AtomicReference<>();
    private ByteBuffer out;
    /** Where {@link #out} stood when it was last handed out: {@link #written} counts from there. */
    private int handedOut;
    private Next next = Next.WAIT;

    /**
     * A connection that sends {@code request} and gives up after 30 s.
     *
     * @param request the bytes to send once connected, as ASCII
     */
    public FixedBytesConnection(String request) {
        this(request, Duration.ofSeconds(30));
    }

    /**
     * A connection that sends {@code request} and gives up (its tick answers close) after {@code deadline}.
     *
     * @param request the bytes to send once connected, as ASCII
     * @param deadline from now, when its tick closes it
     */
    public FixedBytesConnection(String request, Duration deadline) {
        this.out = ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII));
        this.deadline = System.nanoTime() + deadline.toNanos();
    }

    private void on(String event) {
        threads.add(Thread.currentThread());
        if (event != null) {
            events.add(event);
        }
    }

    /**
     * Hands over more bytes to send, from any thread; sent once the loop resumes the connection.
     *
     * @param bytes the bytes, as ASCII
     */
    public void sendLater(String bytes) {
        later.set(bytes.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * What arrived so far.
     *
     * @return the bytes received, as ASCII
     */
    public synchronized String received() {
        return in.toString(StandardCharsets.US_ASCII);
    }

    /**
     * Waits until what arrived ends with {@code suffix}.
     *
     * @param suffix the expected end
     * @throws InterruptedException if interrupted while waiting
     */
    public void awaitReceived(String suffix) throws InterruptedException {
        Await.until(() -> received().endsWith(suffix), "received ends with " + suffix);
    }

    @Override
    public Next connected() {
        on("connected");
        next = Next.READ_WRITE;
        connected.complete(null);
        return next;
    }

    @Override
    public Next connectFailed(IOException cause) {
        on("connectFailed");
        failure = cause;
        return Next.CLOSE;
    }

    @Override
    public void transferFiles(boolean on) {
        on(null);
    }

    @Override
    public Next received(ByteBuffer src) {
        on(null);
        synchronized (this) {
            byte[] bytes = new byte[src.remaining()];
            src.get(bytes);
            in.writeBytes(bytes);
        }
        return next;
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        return received(ByteBuffer.wrap(memory.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE)));
    }

    @Override
    public Next endOfInput() {
        on("endOfInput");
        next = Next.CLOSE;
        return next;
    }

    @Override
    public Next resume() {
        on("resume");
        byte[] more = later.getAndSet(null);
        if (more != null && next != Next.CLOSE) {
            out = ByteBuffer.wrap(more);
            next = Next.READ_WRITE;
        }
        return next;
    }

    @Override
    public Next next() {
        on(null);
        return next;
    }

    @Override
    public State state() {
        return next == Next.CLOSE ? State.CLOSED : out.hasRemaining() ? State.SENDING : State.IDLE;
    }

    @Override
    public ByteBuffer outbound() {
        on(null);
        if (ticksBeforeSending < 0) {
            ticksBeforeSending = ticks.get();
        }
        handedOut = out.position();
        return out;
    }

    @Override
    public FileRegion outboundFile() {
        on(null);
        return null;
    }

    @Override
    public Next written(int bytes) {
        on(null);
        // from where the buffer was handed out: a NIO write has moved it there already, io_uring's copy has not
        out.position(handedOut + bytes);
        if (next != Next.CLOSE) {
            next = out.hasRemaining() ? Next.READ_WRITE : Next.READ;
        }
        return next;
    }

    @Override
    public void closeAfterResponse() {
        on("closeAfterResponse");
    }

    @Override
    public void drain() {
        on("drain");
    }

    @Override
    public Next tick(long now) {
        on(null);
        ticks.incrementAndGet();
        if (next != Next.CLOSE && now - deadline >= 0) {
            on("timeout");
            next = Next.CLOSE;
        }
        return next;
    }

    @Override
    public long nanosToTick(long now) {
        on(null);
        return Math.max(1, deadline - now);
    }

    @Override
    public void closed() {
        on("closed");
        closed.complete(null);
    }
}
