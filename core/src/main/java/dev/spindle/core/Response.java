package dev.spindle.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Objects;

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
    static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    static final String APPLICATION_JSON = "application/json";

    int status = 200;
    String contentType;
    String[] headerNames = new String[4];
    String[] headerValues = new String[4];
    int headerCount;
    byte[] bodyArray;
    int bodyOffset;
    int bodyLength;
    ByteBuffer bodyBuffer;
    String bodyString;
    InputStream bodyStream;
    BodyWriter bodyWriter;
    FileChannel bodyFile;
    /** Length of a streamed body, or -1 when unknown. */
    long streamLength = -1;

    /** Writes a streamed body; see {@link #stream(BodyWriter)}. */
    @FunctionalInterface
    public interface BodyWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    void reset() {
        status = 200;
        contentType = null;
        if (headerCount > 0) {
            Arrays.fill(headerNames, 0, headerCount, null);
            Arrays.fill(headerValues, 0, headerCount, null);
            headerCount = 0;
        }
        bodyArray = null;
        bodyOffset = 0;
        bodyLength = 0;
        bodyBuffer = null;
        bodyString = null;
        bodyStream = null;
        bodyWriter = null;
        bodyFile = null;
        streamLength = -1;
    }

    /**
     * Like {@link #reset()} but keeps the first {@code headers} header fields: what filters set
     * before a handler that failed (CORS, request ids) stays on the error answer.
     */
    void resetKeepingHeaders(int headers) {
        int keep = Math.min(headers, headerCount);
        String[] names = keep == 0 ? null : java.util.Arrays.copyOf(headerNames, keep);
        String[] values = keep == 0 ? null : java.util.Arrays.copyOf(headerValues, keep);
        reset();
        for (int i = 0; i < keep; i++) {
            header(names[i], values[i]);
        }
    }

    /** Closes a streamed body's source that will not be sent (a failed or HEAD response). */
    void closeStreamedBody() {
        try {
            if (bodyStream != null) {
                bodyStream.close();
            }
            if (bodyFile != null) {
                bodyFile.close();
            }
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(Response.class).debug("closing a response body: {}", e.toString());
        }
        bodyStream = null;
        bodyFile = null;
        bodyWriter = null;
    }

    public Response status(int code) {
        if (code < 200 || code > 599) {
            throw new IllegalArgumentException("final status must be 200..599, got " + code);
        }
        status = code;
        return this;
    }

    public int status() {
        return status;
    }

    public Response contentType(String value) {
        checkValue(value);
        contentType = value;
        return this;
    }

    /** Adds a header; framing headers are the server's and are rejected. */
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
        if (headerCount == headerNames.length) {
            headerNames = Arrays.copyOf(headerNames, headerCount * 2);
            headerValues = Arrays.copyOf(headerValues, headerCount * 2);
        }
        headerNames[headerCount] = name;
        headerValues[headerCount] = value;
        headerCount++;
        return this;
    }

    private static void checkValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0xFF || !Ascii.isFieldValueChar((byte) c)) {
                throw new IllegalArgumentException("invalid character in header value: " + value);
            }
        }
    }

    public Response body(byte[] body) {
        return body(body, 0, body.length);
    }

    /** The array is referenced, not copied, until the response is encoded after the handler returns. */
    public Response body(byte[] body, int offset, int length) {
        clearBody();
        bodyArray = body;
        bodyOffset = offset;
        bodyLength = length;
        return this;
    }

    public Response body(ByteBuffer body) {
        clearBody();
        bodyBuffer = body;
        return this;
    }

    /** A UTF-8 body. */
    public Response body(String body) {
        clearBody();
        bodyString = body;
        return this;
    }

    public Response text(String body) {
        contentType = TEXT_PLAIN;
        return body(body);
    }

    public Response json(String body) {
        contentType = APPLICATION_JSON;
        return body(body);
    }

    /**
     * {@code value} written as JSON by the router's {@link JsonCodec}, with
     * {@code Content-Type: application/json}.
     *
     * @throws IllegalStateException when the router has no codec ({@link Router.Builder#json}), or the codec fails
     */
    public Response json(Object value) {
        if (jsonCodec == null) {
            throw new IllegalStateException("no JSON codec: register one with Router.Builder.json(...)");
        }
        byte[] bytes;
        try {
            bytes = jsonCodec.write(value);
        } catch (Exception e) {
            throw new IllegalStateException("the JSON codec could not write a " + (value == null ? "null" : value.getClass().getName()), e);
        }
        contentType = APPLICATION_JSON;
        return body(bytes);
    }

    /** The codec of the route being answered, set by whoever dispatches the request. */
    JsonCodec jsonCodec;

    /**
     * A body read from {@code in} as the socket drains, then closed. {@code length} is its exact
     * length, or -1 when unknown (chunked; close-delimited for HTTP/1.0). Event-loop servers read
     * it on a virtual thread, never on the loop.
     */
    public Response body(InputStream in, long length) {
        Objects.requireNonNull(in, "in");
        if (length < -1) {
            throw new IllegalArgumentException("length must be -1 (unknown) or more, got " + length);
        }
        clearBody();
        bodyStream = in;
        streamLength = length;
        return this;
    }

    /** A body of unknown length written by {@code writer} on its own thread; see {@link #stream(long, BodyWriter)}. */
    public Response stream(BodyWriter writer) {
        return stream(-1, writer);
    }

    /**
     * A body that {@code writer} writes to an {@code OutputStream} on a thread of its own, after
     * the handler has returned; its writes block while the client is slow to read, and
     * {@code flush()} sends what was written so far. {@code length} is the exact length, or -1
     * when unknown (chunked). If the connection ends first, its writes throw {@link IOException}.
     */
    public Response stream(long length, BodyWriter writer) {
        Objects.requireNonNull(writer, "writer");
        if (length < -1) {
            throw new IllegalArgumentException("length must be -1 (unknown) or more, got " + length);
        }
        clearBody();
        bodyWriter = writer;
        streamLength = length;
        return this;
    }

    /**
     * The contents of a file, with {@code Content-Length}; opened now (a missing file throws
     * {@link java.nio.file.NoSuchFileException}) and sent as the socket drains, by
     * {@code FileChannel.transferTo} where the strategy's socket allows it.
     */
    public Response file(Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        clearBody();
        bodyFile = channel;
        streamLength = channel.size();
        return this;
    }

    /**
     * {@code length} bytes of a file from {@code offset} (a byte range), sent like {@link #file(Path)};
     * the body's {@link #bodyFile()} is positioned at {@code offset}.
     *
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
        bodyFile = channel;
        streamLength = length;
        return this;
    }

    /** Whether the body is streamed (an input stream, a writer or a file) rather than held whole. */
    public boolean isStreamed() {
        return bodyStream != null || bodyWriter != null || bodyFile != null;
    }

    /**
     * The length of the body as it will be sent: a whole body's length in bytes, a streamed one's
     * announced length, or -1 for a streamed body of unknown length.
     */
    public long bodyLength() {
        if (isStreamed()) {
            return streamLength;
        }
        if (bodyString != null) {
            return bodyText().length;
        }
        if (bodyArray != null) {
            return bodyLength;
        }
        return bodyBuffer != null ? bodyBuffer.remaining() : 0;
    }

    /** The streamed body's length, or -1 when unknown or not streamed. For adapters to other HTTP stacks. */
    public long streamedLength() {
        return isStreamed() ? streamLength : -1;
    }

    /** The streamed body's input stream, or null. For adapters to other HTTP stacks. */
    public InputStream bodyInputStream() {
        return bodyStream;
    }

    /** The streamed body's writer, or null. For adapters to other HTTP stacks. */
    public BodyWriter bodyWriter() {
        return bodyWriter;
    }

    /** The streamed body's file, open for reading, or null. For adapters to other HTTP stacks. */
    public FileChannel bodyFile() {
        return bodyFile;
    }

    private void clearBody() {
        if (bodyStream != null || bodyFile != null) {
            closeStreamedBody();
        }
        bodyArray = null;
        bodyBuffer = null;
        bodyString = null;
        bodyWriter = null;
        streamLength = -1;
    }

    /** The content type set by the handler, or null. */
    public String contentType() {
        return contentType;
    }

    public int headerCount() {
        return headerCount;
    }

    public String headerName(int i) {
        return headerNames[i];
    }

    public String headerValue(int i) {
        return headerValues[i];
    }

    /** The body as a read-only buffer (no copy of array and buffer bodies), for adapters to other HTTP stacks. */
    public ByteBuffer body() {
        if (bodyString != null) {
            return ByteBuffer.wrap(bodyString.getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer();
        }
        if (bodyArray != null) {
            return ByteBuffer.wrap(bodyArray, bodyOffset, bodyLength).slice().asReadOnlyBuffer();
        }
        if (bodyBuffer != null) {
            return bodyBuffer.asReadOnlyBuffer();
        }
        return ByteBuffer.allocate(0);
    }

    byte[] bodyText() {
        return bodyString == null ? null : bodyString.getBytes(StandardCharsets.UTF_8);
    }
}
