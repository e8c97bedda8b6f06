// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;

/**
 * A request's {@code multipart/form-data} body (RFC 7578), read as it arrives in bounded memory
 * whatever its size ({@link Request#multipart()}). Three ways to read it, one per request:
 * <ul>
 * <li>part by part, each {@link Part}'s content a stream read before the next part
 *     ({@link #nextPart()}, or a for-each loop): a thread that may block (a blocking handler,
 *     or any handler of a buffered body);</li>
 * <li>whole, as a {@link MultipartForm} of fields in memory and files in a temporary directory
 *     ({@link #form()}), on such a thread;</li>
 * <li>whole without holding a thread ({@link #readForm()}): asynchronous handlers.</li>
 * </ul>
 * The parser finds each boundary wherever the body is split, ignores the preamble, the epilogue
 * and transport padding, and holds at most one part's header section in memory. Malformed input
 * (a boundary line not followed by CRLF, a bad header line, a part without
 * {@code Content-Disposition: form-data; name=...}, a body ending before its closing boundary) is
 * a 400 {@link HttpException}; one past a limit of its {@link MultipartOptions} a 413.
 */
public final class Multipart implements Iterable<Part> {
    /** How much of the body one read takes: the request body's own window. */
    private static final int CHUNK = 64 * 1024;
    private static final Executor VIRTUAL = task -> Thread.ofVirtual().name("spindle-multipart").start(task);

    private final Request request;
    private final MultipartOptions options;
    private final MultipartParser parser;
    private InputStream in;
    private byte[] buffer;
    private boolean inputEnded;
    private boolean taken;
    private Part current;
    private boolean partEnded;
    private boolean done;
    private byte[] pending;
    private int pendingOffset;
    private int pendingLength;

    private Multipart(Request request, MultipartOptions options, String boundary) {
        this.request = request;
        this.options = options;
        this.parser = new MultipartParser(boundary, options);
    }

    /** The multipart body of {@code request}: 415 for another type, 400 for a missing or bad boundary. */
    static Multipart of(Request request, MultipartOptions options) {
        java.util.Objects.requireNonNull(options, "options");
        return new Multipart(request, options, MultipartHeaders.boundary(request.header("Content-Type")));
    }

    MultipartOptions options() {
        return options;
    }

    /**
     * The next part, the rest of the current one skipped.
     *
     * @return the part, or null after the last one
     * @throws HttpException 400 for a malformed body, 413 past a limit
     * @throws IOException when the body cannot be read (it broke on the wire, or was over the route's limit)
     * @throws IllegalStateException for a streamed body in an asynchronous handler (use {@link #readForm()})
     */
    public Part nextPart() throws IOException {
        skipCurrent();
        while (!done) {
            int event = advance();
            if (event == MultipartParser.PART) {
                current = parser.part();
                current.owner = this;
                partEnded = false;
                return current;
            }
            if (event == MultipartParser.END) {
                done = true;
                // the epilogue (usually a CRLF) is read, so the body ends as a whole one does
                while (!inputEnded) {
                    advance();
                }
            }
        }
        return null;
    }

    /**
     * The parts in order, as {@link #nextPart()} gives them; its {@link IOException} is thrown as
     * an {@link UncheckedIOException}. One iteration per body.
     *
     * @return an iterator whose {@code next} skips the rest of the part before
     */
    @Override
    public Iterator<Part> iterator() {
        return new Iterator<>() {
            private Part next;

            @Override
            public boolean hasNext() {
                if (next == null && !done) {
                    try {
                        next = nextPart();
                    } catch (IOException e) {
                        throw new UncheckedIOException("reading the multipart body failed", e);
                    }
                }
                return next != null;
            }

            @Override
            public Part next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Part part = next;
                next = null;
                return part;
            }
        };
    }

    /**
     * Reads the parts not handed out yet (the rest of a current one is skipped) into a form: fields in memory, files to temporary files
     * ({@link MultipartOptions#tempDirectory}) deleted when the exchange ends.
     *
     * @return the form
     * @throws HttpException 400 for a malformed body, 413 past a limit (its files are deleted then)
     * @throws IOException when the body cannot be read, or a file cannot be written
     * @throws IllegalStateException for a streamed body in an asynchronous handler (use {@link #readForm()})
     */
    public MultipartForm form() throws IOException {
        MultipartCollector collector = new MultipartCollector(request, options);
        try {
            skipCurrent();
            while (!collector.drain(parser)) {
                if (!feed()) {
                    parser.finish();
                }
            }
            while (feed()) {
                collector.drain(parser);
            }
            done = true;
            return collector.form();
        } catch (IOException | RuntimeException e) {
            collector.abort();
            throw e;
        }
    }

    /**
     * Reads the body into a form without holding a thread while it arrives: each chunk the
     * connection delivers (as {@link Request#bodyPublisher()} does, at most 64 KiB waiting) is
     * parsed and written to disk on a virtual thread, and the next is asked for once it has been;
     * the event loop never waits for the disk.
     *
     * @return a stage completed with the form, or failed with the {@link HttpException} (400, 413)
     *         or the body's failure; the files are deleted when the exchange ends, or at once on failure
     */
    public CompletionStage<MultipartForm> readForm() {
        CompletableFuture<MultipartForm> result = new CompletableFuture<>();
        if (taken) {
            result.completeExceptionally(new IllegalStateException("the multipart body is already being read"));
            return result;
        }
        taken = true;
        MultipartCollector collector = new MultipartCollector(request, options);
        request.bodyPublisher().subscribe(new Flow.Subscriber<>() {
            private Flow.Subscription subscription;
            /** The chunks' work, in order: delivery is serial, and a task may end after the next delivery. */
            private volatile CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(1);
            }

            @Override
            public void onNext(ByteBuffer item) {
                then(() -> {
                    if (item.hasArray()) {
                        parser.feed(item.array(), item.arrayOffset() + item.position(), item.remaining());
                    } else {
                        byte[] copy = new byte[item.remaining()];
                        item.get(copy);
                        parser.feed(copy, 0, copy.length);
                    }
                    collector.drain(parser);
                    subscription.request(1);
                });
            }

            @Override
            public void onError(Throwable failure) {
                then(() -> {
                    throw failure;
                });
            }

            @Override
            public void onComplete() {
                then(() -> {
                    parser.finish();
                    result.complete(collector.form());
                });
            }

            private void then(Step step) {
                tail = tail.thenRunAsync(() -> {
                    if (result.isDone()) {
                        return;
                    }
                    try {
                        step.run();
                    } catch (Throwable t) {
                        subscription.cancel();
                        collector.abort();
                        result.completeExceptionally(t);
                    }
                }, VIRTUAL);
            }
        });
        return result;
    }

    private interface Step {
        void run() throws Throwable;
    }

    /** Reads the rest of the current part, if any, and lets it go. */
    private void skipCurrent() throws IOException {
        if (current != null) {
            int n;
            do {
                n = read(current, null, 0, Integer.MAX_VALUE);
            } while (n >= 0);
            current = null;
        }
    }

    /**
     * Reads the current part's content into {@code b} ({@code b} null: skips it).
     *
     * @return bytes read (or skipped), -1 at the part's end
     */
    int read(Part part, byte[] b, int off, int len) throws IOException {
        if (part != current || partEnded) {
            return -1;
        }
        while (pendingLength == 0) {
            int event = advance();
            if (event == MultipartParser.PART_END) {
                partEnded = true;
                return -1;
            }
            if (event == MultipartParser.DATA) {
                pending = parser.dataArray();
                pendingOffset = parser.dataOffset();
                pendingLength = parser.dataLength();
            }
        }
        int n = Math.min(len, pendingLength);
        if (b != null) {
            System.arraycopy(pending, pendingOffset, b, off, n);
        }
        pendingOffset += n;
        pendingLength -= n;
        return n;
    }

    /** The parser's next event, reading the body as it needs; at the body's end, the parser is told. */
    private int advance() throws IOException {
        while (true) {
            int event = parser.next();
            if (event != MultipartParser.NEED_INPUT) {
                return event;
            }
            if (!feed()) {
                parser.finish();
                return MultipartParser.NEED_INPUT;
            }
        }
    }

    /** Feeds the parser the body's next bytes; false at the body's end. */
    private boolean feed() throws IOException {
        if (inputEnded) {
            return false;
        }
        RequestBody streamed = request.state.streamed;
        if (!taken) {
            taken = true;
            if (streamed == null) {
                byte[] array = request.state.array;
                if (array != null) {
                    parser.feed(array, request.state.base + request.state.bodyStart, request.state.bodyEnd - request.state.bodyStart);
                } else {
                    byte[] copy = request.bodyBytes();
                    parser.feed(copy, 0, copy.length);
                }
                return true;
            }
            if (!request.state.mayBlock) {
                throw new IllegalStateException("the body of a request to an asynchronous handler arrives later: use readForm()");
            }
            in = streamed.stream();
            buffer = new byte[CHUNK];
        }
        int n = in == null ? -1 : in.read(buffer);
        if (n < 0) {
            inputEnded = true;
            return false;
        }
        parser.feed(buffer, 0, n);
        return true;
    }
}
