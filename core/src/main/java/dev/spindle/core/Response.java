// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.exchange.ResponseState;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a handler answers: status, headers and one body. {@code Date}, {@code Server},
 * {@code Content-Length} (or {@code Transfer-Encoding: chunked}) and {@code Connection} are added
 * by the server. The connection reuses one instance per request, so an inline handler must not
 * keep it after returning (an asynchronous one owns it until its stage completes).
 *
 * <p>Bodies: bytes or a string (sent whole), or streamed as the socket drains, so a response of
 * any size holds at most the write high-water mark plus one chunk of memory:
 * <ul>
 *   <li>{@link #body(InputStream, long)}: read chunk by chunk (off the event loop), closed at the end;</li>
 *   <li>{@link #stream(BodyWriter)}: a callback writes to an {@code OutputStream} on its own thread,
 *       blocking while the client is slow;</li>
 *   <li>{@link #file(Path)}: a file, with {@code Content-Length}, sent with
 *       {@code FileChannel.transferTo} (zero-copy) where the strategy's socket allows it.</li>
 * </ul>
 * A streamed body of unknown length is sent chunked to HTTP/1.1 clients and delimited by the close
 * of the connection for HTTP/1.0 ones. A stream that fails midway ends the connection (the client
 * sees a truncated body), since the status has already been sent.
 */
public final class Response {
    /** The content type of {@link #body(String)} text: {@value}. */
    public static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    /** The content type of {@link #json(String)}: {@value}. */
    public static final String APPLICATION_JSON = "application/json";

    final ResponseState state;

    Response(ResponseState state) {
        this.state = state;
    }

    /** Writes a streamed body; see {@link #stream(BodyWriter)}. */
    @FunctionalInterface
    public interface BodyWriter {
        /**
         * Writes the whole body to {@code out}, once, on a thread of its own after the handler has
         * returned. Returning ends the body (the server closes {@code out}); writes block while the
         * client is slow, and {@code flush()} sends what was written so far.
         *
         * @param out the body's stream, valid only until this returns
         * @throws IOException when writing fails, e.g. because the connection ended; any exception
         *         ends the connection, since the status has already been sent
         */
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * When the response's body has gone out, and how long it was: for a whole body at once, with
     * {@link #bodyLength()}; for a streamed body (file, stream, writer), once its last byte was
     * handed to the connection's output, with the bytes sent, so a body of unknown length is
     * counted too. It completes with -1 if the response was replaced by an error answer before it
     * was sent, and exceptionally if the connection ended first. Ask once the response is final,
     * as a filter does after {@code chain.proceed()}. For the whole exchange as it ended (the
     * status sent, the time to its last byte, a timeout's 503) use {@link Request#onEnd}.
     *
     * @return a stage completing with the body bytes sent
     */
    public CompletionStage<Long> sent() {
        if (!isStreamed()) {
            return CompletableFuture.completedFuture(bodyLength());
        }
        if (state.sent == null) {
            state.sent = new CompletableFuture<>();
        }
        return state.sent;
    }

    /**
     * Sets the status code. Only final statuses: interim ones ({@code 100 Continue}) are the server's.
     *
     * @param code the status, from 200 to 599
     * @return this response
     * @throws IllegalArgumentException when {@code code} is outside 200..599
     */
    public Response status(int code) {
        if (code < 200 || code > 599) {
            throw new IllegalArgumentException("final status must be 200..599, got " + code);
        }
        state.status = code;
        return this;
    }

    /**
     * The status code set so far.
     *
     * @return the status; 200 until a handler sets another
     */
    public int status() {
        return state.status;
    }

    /**
     * Sets the {@code Content-Type} header, replacing any earlier value.
     *
     * @param value the media type, e.g. {@code text/html; charset=utf-8}; Latin-1 without control
     *        characters other than tab; not null
     * @return this response
     * @throws IllegalArgumentException when {@code value} has a character a field value cannot hold
     *         (such as CR or LF)
     */
    public Response contentType(String value) {
        checkValue(value);
        state.contentType = value;
        return this;
    }

    /**
     * Adds a header; framing headers are the server's and are rejected. Adding a name twice sends
     * two field lines; {@code Content-Type} goes to {@link #contentType(String)}, replacing the
     * earlier value.
     *
     * @param name the header's name, an HTTP token (ASCII letters, digits and
     *        {@code !#$%&'*+-.^_`|~}); sent as given
     * @param value the header's value, Latin-1 without control characters other than tab
     * @return this response
     * @throws IllegalArgumentException when the name is empty or not a token, is
     *         {@code Content-Length}, {@code Transfer-Encoding} or {@code Connection}, or the value
     *         has a character a field value cannot hold (such as CR or LF)
     */
    public Response header(String name, String value) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty header name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 0x7F || !Ascii.isTchar((byte) c)) {
                throw new IllegalArgumentException("invalid header name: " + name);
            }
        }
        if (name.equalsIgnoreCase("Content-Length") || name.equalsIgnoreCase("Transfer-Encoding")
                || name.equalsIgnoreCase("Connection")) {
            throw new IllegalArgumentException(name + " is set by the server");
        }
        if (name.equalsIgnoreCase("Content-Type")) {
            return contentType(value);
        }
        checkValue(value);
        state.addHeader(name, value);
        return this;
    }

    /**
     * Adds a {@code Set-Cookie} field for {@code cookie}.
     *
     * @param cookie the cookie to set
     * @return this response
     * @throws IllegalStateException for {@code SameSite=None} without {@code Secure}
     */
    public Response cookie(Cookie cookie) {
        return header("Set-Cookie", cookie.fieldValue());
    }

    private static void checkValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0xFF || !Ascii.isFieldValueChar((byte) c)) {
                throw new IllegalArgumentException("invalid character in header value: " + value);
            }
        }
    }

    /**
     * The whole array as the body, referenced, not copied (see {@link #body(byte[], int, int)}).
     * Replaces any earlier body.
     *
     * @param body the bytes to send
     * @return this response
     */
    public Response body(byte[] body) {
        return body(body, 0, body.length);
    }

    /**
     * The array is referenced, not copied, until the response is encoded after the handler returns.
     * So the caller must not change those bytes until then. Replaces any earlier body.
     *
     * @param body the array holding the body
     * @param offset the index of the body's first byte in {@code body}
     * @param length the body's length in bytes; {@code offset} and {@code length} must lie within
     *        {@code body}
     * @return this response
     */
    public Response body(byte[] body, int offset, int length) {
        clearBody();
        state.bodyArray = body;
        state.bodyOffset = offset;
        state.bodyLength = length;
        return this;
    }

    /**
     * The buffer's remaining bytes (from its position to its limit) as the body, referenced, not
     * copied, until the response is encoded after the handler returns; the caller must not change it
     * until then. Replaces any earlier body. Echoing {@link Request#body()} this way may send the
     * request's bytes from where they arrived.
     *
     * @param body the buffer holding the body
     * @return this response
     */
    public Response body(ByteBuffer body) {
        clearBody();
        state.bodyBuffer = body;
        return this;
    }

    /**
     * A UTF-8 body. The content type is left as it is ({@link #text(String)} sets one). Replaces any
     * earlier body.
     *
     * @param body the text to send
     * @return this response
     */
    public Response body(String body) {
        clearBody();
        state.bodyString = body;
        return this;
    }

    /**
     * A UTF-8 text body with {@code Content-Type: text/plain; charset=utf-8}. Replaces any earlier
     * body and content type.
     *
     * @param body the text to send
     * @return this response
     */
    public Response text(String body) {
        state.contentType = TEXT_PLAIN;
        return body(body);
    }

    /**
     * Text that already is JSON, sent as it is (UTF-8) with {@code Content-Type: application/json};
     * it is neither checked nor encoded. To send a value as JSON, a string included, use
     * {@link #json(Object)}. Replaces any earlier body and content type.
     *
     * @param body the JSON text
     * @return this response
     */
    public Response jsonText(String body) {
        state.contentType = APPLICATION_JSON;
        return body(body);
    }

    /**
     * {@code value} written as JSON by the router's {@link JsonCodec}, with
     * {@code Content-Type: application/json}: a {@code String} becomes a JSON string. Text that
     * already is JSON goes out with {@link #jsonText(String)}.
     *
     * @param value the object to write; null is handed to the codec as it is
     * @return this response
     * @throws IllegalStateException when the router has no codec ({@link Router.Builder#json}), or the codec fails
     */
    public Response json(Object value) {
        if (state.jsonCodec == null) {
            throw new IllegalStateException(value instanceof CharSequence
                    ? "no JSON codec: register one with Router.Builder.json(...), or send JSON text as it is with jsonText(String)"
                    : "no JSON codec: register one with Router.Builder.json(...)");
        }
        byte[] bytes;
        try {
            bytes = state.jsonCodec.write(value);
        } catch (Exception e) {
            throw new IllegalStateException("the JSON codec could not write a " + (value == null ? "null" : value.getClass().getName()), e);
        }
        state.contentType = APPLICATION_JSON;
        return body(bytes);
    }

    /**
     * A body read from {@code in} as the socket drains, then closed. {@code length} is its exact
     * length, or -1 when unknown (chunked; close-delimited for HTTP/1.0). Event-loop servers read
     * it on a virtual thread, never on the loop. Replaces any earlier body. If the response is not
     * sent (a HEAD request, a failure, another body set), {@code in} is closed unread.
     *
     * @param in the body's source, not null
     * @param length the body's exact length in bytes, or -1 when unknown
     * @return this response
     * @throws IllegalArgumentException when {@code length} is less than -1
     */
    public Response body(InputStream in, long length) {
        Objects.requireNonNull(in, "in");
        if (length < -1) {
            throw new IllegalArgumentException("length must be -1 (unknown) or more, got " + length);
        }
        clearBody();
        state.bodyStream = in;
        state.streamLength = length;
        return this;
    }

    /**
     * A body of unknown length written by {@code writer} on its own thread; see {@link #stream(long, BodyWriter)}.
     *
     * @param writer writes the body, not null
     * @return this response
     */
    public Response stream(BodyWriter writer) {
        return stream(-1, writer);
    }

    /**
     * A body that {@code writer} writes to an {@code OutputStream} on a thread of its own, after
     * the handler has returned; its writes block while the client is slow to read, and
     * {@code flush()} sends what was written so far. {@code length} is the exact length, or -1
     * when unknown (chunked). If the connection ends first, its writes throw {@link IOException}.
     * Replaces any earlier body.
     *
     * @param length the body's exact length in bytes, or -1 when unknown
     * @param writer writes the body, not null
     * @return this response
     * @throws IllegalArgumentException when {@code length} is less than -1
     */
    public Response stream(long length, BodyWriter writer) {
        Objects.requireNonNull(writer, "writer");
        if (length < -1) {
            throw new IllegalArgumentException("length must be -1 (unknown) or more, got " + length);
        }
        clearBody();
        state.bodyWriter = writer;
        state.streamLength = length;
        return this;
    }

    /**
     * A {@code text/event-stream} body (server-sent events) with {@link EventStream.Options#defaults()}:
     * see {@link #eventStream(EventStream.Options, Consumer)}.
     *
     * @param opened called with the stream once the response is under way, on a thread of its own
     * @return this response
     */
    public Response eventStream(java.util.function.Consumer<EventStream> opened) {
        return eventStream(EventStream.Options.defaults(), opened);
    }

    /**
     * A {@code text/event-stream} body (server-sent events, {@code Cache-Control: no-cache}) that
     * stays open after the handler returns: {@code opened} receives the {@link EventStream}, which
     * any thread may send events to until it, or the client, closes it. {@code opened} runs once
     * the response is under way, on a thread of its own (the server's blocking executor, or a new
     * virtual thread), and may block; once it returns, an open stream holds no thread: the
     * connection takes what is sent as its client reads. {@code opened} runs after the handler
     * returned, so what it needs of the request is read in the handler. A client ends the stream by
     * closing its connection (an {@code EventSource} does). A server that begins to close ends its
     * streams once what they queued has gone out, so their clients reconnect to another. Replaces
     * any earlier body.
     * {@snippet :
     * router.get("/prices", (req, res) -> res.eventStream(stream -> {
     *     subscribers.add(stream);                       // a publisher sends to each
     *     stream.closed().thenRun(() -> subscribers.remove(stream));
     * }));
     * }
     *
     * @param options the queue bound, what a full queue does, the heartbeat
     * @param opened called with the stream once the response is under way, on a thread of its own;
     *        an exception from it ends the stream and its connection
     * @return this response
     */
    public Response eventStream(EventStream.Options options, java.util.function.Consumer<EventStream> opened) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(opened, "opened");
        contentType("text/event-stream").header("Cache-Control", "no-cache");
        clearBody();
        state.bodySource = new EventStreamWriter(options, opened);
        return this;
    }

    /**
     * The contents of a file, with {@code Content-Length}; opened now (a missing file throws
     * {@link java.nio.file.NoSuchFileException}) and sent as the socket drains, by
     * {@code FileChannel.transferTo} where the strategy's socket allows it. The file is closed once
     * sent, or when the response is not sent; its length is taken when it is opened.
     *
     * @param path the file to send
     * @return this response
     * @throws IOException when the file cannot be opened or its size read
     */
    public Response file(Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        clearBody();
        state.bodyFile = channel;
        state.streamLength = channel.size();
        return this;
    }

    /**
     * {@code length} bytes of a file from {@code offset} (a byte range), sent like {@link #file(Path)}.
     *
     * @param path the file to send from
     * @param offset where the range starts, in bytes from the start of the file
     * @param length the range's length in bytes
     * @return this response
     * @throws IOException when the file cannot be opened, its size read or its position set
     * @throws IllegalArgumentException when the range does not lie within the file
     */
    public Response file(Path path, long offset, long length) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        long size = channel.size();
        if (offset < 0 || length < 0 || offset > size || length > size - offset) {
            channel.close();
            throw new IllegalArgumentException("range " + offset + "+" + length + " is not within the " + size + "-byte file " + path);
        }
        channel.position(offset);
        clearBody();
        state.bodyFile = channel;
        state.streamLength = length;
        return this;
    }

    /**
     * Whether the body is streamed (an input stream, a writer or a file) rather than held whole.
     *
     * @return true for a streamed body
     */
    public boolean isStreamed() {
        return state.bodyStream != null || state.bodyWriter != null || state.bodyFile != null || state.bodySource != null;
    }

    /**
     * The length of the body as it will be sent: a whole body's length in bytes, a streamed one's
     * announced length, or -1 for a streamed body of unknown length.
     *
     * @return the length in bytes, 0 for no body, or -1; a string body is encoded to count it
     */
    public long bodyLength() {
        if (isStreamed()) {
            return state.streamLength;
        }
        if (state.bodyString != null) {
            return utf8Length(state.bodyString);
        }
        if (state.bodyArray != null) {
            return state.bodyLength;
        }
        return state.bodyBuffer != null ? state.bodyBuffer.remaining() : 0;
    }

    /** The UTF-8 length of {@code s}, counted rather than encoded: filters ask it for every exchange. */
    private static long utf8Length(String s) {
        long n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                n++; // a lone surrogate is encoded as '?', as String.getBytes does
            } else {
                n += 3;
            }
        }
        return n;
    }

    private void clearBody() {
        if (state.bodyStream != null || state.bodyFile != null || state.bodySource != null) {
            state.closeStreamedBody();
        }
        state.bodyArray = null;
        state.bodyBuffer = null;
        state.bodyString = null;
        state.bodyWriter = null;
        state.streamLength = -1;
    }

    /** The content type set by the handler, or null (then no {@code Content-Type} is sent). */
    String contentType() {
        return state.contentType;
    }

    /** The number of headers added with {@link #header(String, String)}, not counting the content type. */
    int headerCount() {
        return state.headerCount;
    }

    /** The name of the {@code i}th added header, as given. */
    String headerName(int i) {
        return state.headerNames[i];
    }

    /** The value of the {@code i}th added header. */
    String headerValue(int i) {
        return state.headerValues[i];
    }

}
