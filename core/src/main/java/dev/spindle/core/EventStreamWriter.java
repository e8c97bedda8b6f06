// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.exchange.BodySource;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link EventStream} behind {@link Response#eventStream}: senders queue encoded events in a
 * bounded queue and wake the connection, which takes them when its output has room, and writes a
 * heartbeat comment when nothing went out for the heartbeat's time ({@link #due}). No thread waits
 * on an open stream: {@code opened} runs on one of its own and returns.
 */
final class EventStreamWriter implements EventStream, BodySource {
    private static final Logger log = LoggerFactory.getLogger(EventStreamWriter.class);

    private record Item(byte[] bytes, CompletableFuture<Void> done) {
    }

    private static final Item HEARTBEAT = new Item(ServerSentEvent.comment(""), null);

    private final Options options;
    private final Consumer<EventStream> opened;
    private final long heartbeat;
    /** Linked, so an idle stream holds no array of maxQueued slots (10,000 streams would hold 40 MiB of empty ones). */
    private final ConcurrentLinkedQueue<Item> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    /** Sends are taken. */
    private volatile boolean open = true;
    /** {@link #close()} was called: the body ends once the queue is empty. */
    private volatile boolean closing;
    /** The connection let go of the stream: nothing queued will go out. */
    private volatile boolean cancelled;
    /** Why the body fails (the queue overflowed with {@link Overflow#CLOSE}, or {@code opened} threw), or null. */
    private volatile IOException failure;
    private volatile Runnable wakeup;
    /** A wakeup ran and the connection has not looked at the queue since: the next send need not wake it again. */
    private volatile boolean wakePending;
    /** The item being taken, and how much of it was; the connection's thread only. */
    private Item head;
    private int headOffset;
    private long lastNow;
    private long lastOutput;

    EventStreamWriter(Options options, Consumer<EventStream> opened) {
        this.options = options;
        this.opened = opened;
        this.heartbeat = options.heartbeat().toNanos();
    }

    @Override
    public CompletionStage<Void> send(ServerSentEvent event) {
        return offer(event.encode());
    }

    @Override
    public CompletionStage<Void> comment(String text) {
        return offer(ServerSentEvent.comment(text));
    }

    private CompletionStage<Void> offer(byte[] bytes) {
        if (!open) {
            return CompletableFuture.failedFuture(new IOException("the event stream is closed"));
        }
        if (queued.incrementAndGet() > options.maxQueued()) {
            queued.decrementAndGet();
            IOException slow = new IOException("the client reads more slowly than events come: " + options.maxQueued()
                    + " events wait (" + (options.overflow() == Overflow.CLOSE ? "stream closed" : "event dropped") + ")");
            if (options.overflow() == Overflow.CLOSE) {
                // the connection ends at its next look, also while the client holds its output full
                failure = slow;
                end(slow);
            }
            return CompletableFuture.failedFuture(slow);
        }
        Item item = new Item(bytes, new CompletableFuture<>());
        queue.add(item);
        if (cancelled || failure != null) {
            // ended while this was added: nobody will take it
            sweep(new IOException("the event stream is closed"));
        }
        wake();
        return item.done();
    }

    private void wake() {
        Runnable w = wakeup;
        if (w != null && !wakePending) {
            wakePending = true;
            w.run();
        }
    }

    @Override
    public void close() {
        if (open) {
            open = false;
            closing = true;
            wake();
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public CompletionStage<Void> closed() {
        return closed;
    }

    @Override
    public void start(Executor executor, Runnable wakeup) {
        lastOutput = System.nanoTime();
        this.wakeup = wakeup;
        Runnable task = () -> {
            try {
                opened.accept(this);
            } catch (RuntimeException | Error e) {
                log.warn("an event stream's opened callback failed; ending its connection", e);
                failure = new IOException("the event stream's opened callback failed", e);
                wakePending = false;
                end(failure);
            }
        };
        try {
            if (executor != null) {
                executor.execute(task);
            } else {
                Thread.ofVirtual().name("spindle-event-stream").start(task);
            }
        } catch (RejectedExecutionException e) {
            failure = new IOException("the server is shutting down");
            end(failure);
        }
    }

    @Override
    public int available(long now) throws IOException {
        wakePending = false;
        lastNow = now;
        IOException failed = failure;
        if (failed != null) {
            throw failed;
        }
        if (cancelled) {
            return -1;
        }
        if (head == null) {
            head = queue.poll();
            headOffset = 0;
            if (head == null) {
                if (closing) {
                    return -1;
                }
                if (heartbeat == 0 || now - lastOutput < heartbeat) {
                    return 0;
                }
                head = HEARTBEAT;
            } else {
                queued.decrementAndGet();
            }
        }
        return head.bytes().length - headOffset;
    }

    @Override
    public int take(byte[] dst, int at, int max) {
        Item item = head;
        int n = Math.min(max, item.bytes().length - headOffset);
        System.arraycopy(item.bytes(), headOffset, dst, at, n);
        headOffset += n;
        lastOutput = lastNow;
        if (headOffset == item.bytes().length) {
            head = null;
            if (item.done() != null) {
                item.done().complete(null);
            }
        }
        return n;
    }

    @Override
    public long due() {
        return heartbeat == 0 ? Long.MAX_VALUE : lastOutput + heartbeat;
    }

    @Override
    public void drain() {
        close();
    }

    @Override
    public void cancel() {
        cancelled = true;
        end(new IOException("the event stream closed before this event went out"));
    }

    /** The stream is over: nothing more is taken, what waits fails, {@link #closed()} completes. */
    private void end(IOException why) {
        open = false;
        sweep(why);
        Item partial = head;
        if (partial != null && partial.done() != null && cancelled) {
            partial.done().completeExceptionally(why);
        }
        closed.complete(null);
        wake();
    }

    private void sweep(IOException why) {
        for (Item left; (left = queue.poll()) != null; ) {
            queued.decrementAndGet();
            left.done().completeExceptionally(why);
        }
    }
}
