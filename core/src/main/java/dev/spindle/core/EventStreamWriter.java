// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The {@link EventStream} behind {@link Response#eventStream}: senders queue encoded events in a
 * bounded queue; the response's body writer, on its own thread, takes them, writes them, and
 * flushes once the queue is empty (so a burst costs one flush), or writes a heartbeat comment when
 * nothing came for the heartbeat's time.
 */
final class EventStreamWriter implements EventStream, Response.BodyWriter {
    private record Item(byte[] bytes, CompletableFuture<Void> done) {
    }

    private static final byte[] HEARTBEAT = ServerSentEvent.comment("");
    private static final Item END = new Item(null, null);

    private final Options options;
    private final Consumer<EventStream> opened;
    private final LinkedBlockingQueue<Item> queue;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile boolean open = true;
    /** The queue overflowed with {@link Overflow#CLOSE}: the writer stops without sending what waits. */
    private volatile boolean overflowed;
    /** The thread in {@link #writeTo} while it runs (under this object's lock), so an overflow can stop a write the client blocks. */
    private Thread writer;

    EventStreamWriter(Options options, Consumer<EventStream> opened) {
        this.options = options;
        this.opened = opened;
        // one more slot than allowed, for close()'s end marker; linked, so an idle stream holds no
        // array of maxQueued slots (10,000 streams would hold 40 MiB of empty ones)
        this.queue = new LinkedBlockingQueue<>(options.maxQueued() + 1);
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
        Item item = new Item(bytes, new CompletableFuture<>());
        // the last slot is close()'s
        if (queue.remainingCapacity() <= 1 || !queue.offer(item)) {
            if (options.overflow() == Overflow.CLOSE) {
                overflowed = true;
                close();
                stopWriter();
            }
            return CompletableFuture.failedFuture(new IOException("the client reads more slowly than events come: "
                    + options.maxQueued() + " events wait (" + (options.overflow() == Overflow.CLOSE ? "stream closed" : "event dropped") + ")"));
        }
        if (!open) {
            // closed meanwhile: the writer may already have failed what it held
            item.done().completeExceptionally(new IOException("the event stream is closed"));
        }
        return item.done();
    }

    /** A client that reads too slowly holds the writer in a write: interrupting it ends the body, and the connection. */
    private synchronized void stopWriter() {
        if (writer != null) {
            writer.interrupt();
        }
    }

    @Override
    public void close() {
        if (open) {
            open = false;
            queue.offer(END);
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
    public void writeTo(OutputStream out) throws IOException {
        List<CompletableFuture<Void>> written = new ArrayList<>();
        IOException failure = null;
        synchronized (this) {
            writer = Thread.currentThread();
        }
        try {
            opened.accept(this);
            out.flush();   // the status and headers, so the client sees the stream open before the first event
            long heartbeat = options.heartbeat().toNanos();
            while (!overflowed) {
                Item item = heartbeat == 0 ? queue.take() : queue.poll(heartbeat, TimeUnit.NANOSECONDS);
                if (item == END || overflowed) {
                    break;
                }
                if (item == null) {
                    out.write(HEARTBEAT);
                    out.flush();
                    continue;
                }
                out.write(item.bytes());
                written.add(item.done());
                if (queue.isEmpty()) {
                    out.flush();
                    written.forEach(d -> d.complete(null));
                    written.clear();
                }
            }
            out.flush();
            written.forEach(d -> d.complete(null));
            written.clear();
        } catch (IOException e) {
            failure = e;
            throw e;
        } catch (InterruptedException e) {
            failure = new InterruptedIOException("interrupted while streaming events");
            throw failure;
        } finally {
            synchronized (this) {
                writer = null;
                // an overflow's interrupt meant for this stream, not for what the thread runs next
                Thread.interrupted();
            }
            open = false;
            IOException why = failure != null ? failure : new IOException("the event stream closed before this event went out");
            written.forEach(d -> d.completeExceptionally(why));
            for (Item left; (left = queue.poll()) != null; ) {
                if (left != END) {
                    left.done().completeExceptionally(why);
                }
            }
            closed.complete(null);
        }
    }
}
