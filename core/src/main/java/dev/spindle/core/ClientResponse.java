// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A complete HTTP/1.1 response received by Spindle's HTTP client: its status, its header fields,
 * its whole body and any trailer fields of a chunked body. Immutable and safe to read from any
 * thread. Header names and values are decoded (Latin-1) only when asked for, so a response whose
 * headers nobody reads costs no strings.
 *
 * <p>Interim responses ({@code 100 Continue}, {@code 103 Early Hints}) are not responses of their
 * own: the client skips them and completes the request with the final one.
 *
 * <p>A response to a request sent with {@link Client.RequestBuilder#streamResponse()} is
 * {@linkplain #isStreamed() streamed}: it completes once its head has arrived, and its body is
 * read as it arrives with {@link #bodyStream()}, {@link #bodyPublisher()} or {@link #readBody()},
 * once, at the reader's pace (at most 64 KiB wait unread; beyond that the connection stops reading
 * the socket until the reader takes some). Its connection carries the next request only once the
 * body has been read to its end; a reader that stops early (closes the stream, cancels) ends the
 * connection. The buffered accessors ({@link #body()}, {@link #bodyText()}...) are not available
 * on it, nor are the trailers of a chunked body.
 */
public final class ClientResponse {
    static {
        // the client engine builds responses through this; installed once, when this class loads
        new ClientEngineAccess();
    }

    private static final int[] NO_FIELDS = new int[0];
    private static final byte[] NO_BYTES = new byte[0];

    private final int status;
    /** As the server said it: {@code HTTP/1.1}, {@code HTTP/1.0} or {@code HTTP/2}. */
    private final String version;
    /** The status line and header section as received; {@link #fields} index into it. */
    private final byte[] head;
    private final int reasonStart;
    private final int reasonEnd;
    /** Four offsets per header field into {@link #head}: name start and end, value start and end. */
    private final int[] fields;
    private final int fieldCount;
    private final byte[] body;
    private final int bodyLength;
    /** The trailer section as received, and its fields as four offsets each, as for the header section. */
    private final byte[] trailerBytes;
    private final int[] trailerFields;
    private final int trailerCount;
    /** The body as it arrives, for a streamed response; null for a buffered one. */
    private final RequestBody streamed;

    ClientResponse(int status, String version, byte[] head, int reasonStart, int reasonEnd, int[] fields, int fieldCount,
            byte[] body, int bodyLength, byte[] trailerBytes, int[] trailerFields, int trailerCount) {
        this(status, version, head, reasonStart, reasonEnd, fields, fieldCount, body, bodyLength, trailerBytes, trailerFields,
                trailerCount, null);
    }

    /** A streamed response: its head, and its body as the connection feeds it. */
    ClientResponse(int status, String version, byte[] head, int reasonStart, int reasonEnd, int[] fields, int fieldCount,
            RequestBody streamed) {
        this(status, version, head, reasonStart, reasonEnd, fields, fieldCount, null, 0, null, null, 0, streamed);
    }

    private ClientResponse(int status, String version, byte[] head, int reasonStart, int reasonEnd, int[] fields, int fieldCount,
            byte[] body, int bodyLength, byte[] trailerBytes, int[] trailerFields, int trailerCount, RequestBody streamed) {
        this.status = status;
        this.version = version;
        this.head = head;
        this.reasonStart = reasonStart;
        this.reasonEnd = reasonEnd;
        this.fields = fields;
        this.fieldCount = fieldCount;
        this.body = body != null ? body : NO_BYTES;
        this.bodyLength = body != null ? bodyLength : 0;
        this.trailerBytes = trailerBytes != null ? trailerBytes : NO_BYTES;
        this.trailerFields = trailerFields != null ? trailerFields : NO_FIELDS;
        this.trailerCount = trailerFields != null ? trailerCount : 0;
        this.streamed = streamed;
    }

    /**
     * This buffered response with {@code decoded} as its body and without its {@code Content-Encoding}
     * and {@code Content-Length} fields: what the client hands over once it decoded the body.
     */
    ClientResponse decoded(byte[] decoded) {
        int[] kept = new int[fields.length];
        int count = 0;
        for (int i = 0; i < fieldCount; i++) {
            String name = headerName(i);
            if (!name.equalsIgnoreCase("Content-Encoding") && !name.equalsIgnoreCase("Content-Length")) {
                System.arraycopy(fields, i * 4, kept, count * 4, 4);
                count++;
            }
        }
        return new ClientResponse(status, version, head, reasonStart, reasonEnd, kept, count, decoded, decoded.length, trailerBytes,
                trailerFields, trailerCount, null);
    }

    /**
     * The status code of the final response.
     *
     * @return the code, from 200 to 599 (a {@code 1xx} is never final here)
     */
    public int status() {
        return status;
    }

    /**
     * The HTTP version the server answered with.
     *
     * @return {@code "HTTP/1.1"}, {@code "HTTP/1.0"} or {@code "HTTP/2"}
     */
    public String version() {
        return version;
    }

    /**
     * The reason phrase of the status line, which carries no meaning (RFC 9112 4).
     *
     * @return the phrase as received, Latin-1; possibly empty
     */
    public String reason() {
        return latin1(head, reasonStart, reasonEnd);
    }

    /**
     * The first value of a header, matched case-insensitively, or null.
     *
     * @param name the header's name, in any case
     * @return the value of the first field line with that name, Latin-1, without surrounding
     *         whitespace; null when the header is absent
     */
    public String header(String name) {
        int i = indexOf(head, fields, fieldCount, name, 0);
        return i < 0 ? null : headerValue(i);
    }

    /**
     * Every value of a header, matched case-insensitively, one entry per field line in the order
     * received (a comma-separated list in one line stays one entry; each {@code Set-Cookie} is one).
     *
     * @param name the header's name, in any case
     * @return an unmodifiable list of the values, Latin-1, without surrounding whitespace; empty when absent
     */
    public List<String> headers(String name) {
        return all(head, fields, fieldCount, name);
    }

    /**
     * The number of header field lines received; a name sent twice counts twice. With
     * {@link #headerName(int)} and {@link #headerValue(int)} it walks every header in order.
     *
     * @return the count, 0 or more
     */
    public int headerCount() {
        return fieldCount;
    }

    /**
     * The name of a header field line, as sent (its case kept).
     *
     * @param i the line's index in the order received, from 0 to {@link #headerCount()} - 1
     * @return the name, Latin-1
     * @throws IndexOutOfBoundsException if {@code i} is not a line's index
     */
    public String headerName(int i) {
        return latin1(head, fields[check(i, fieldCount) * 4], fields[i * 4 + 1]);
    }

    /**
     * The value of a header field line.
     *
     * @param i the line's index in the order received, from 0 to {@link #headerCount()} - 1
     * @return the value, Latin-1, without surrounding whitespace; possibly empty
     * @throws IndexOutOfBoundsException if {@code i} is not a line's index
     */
    public String headerValue(int i) {
        return latin1(head, fields[check(i, fieldCount) * 4 + 2], fields[i * 4 + 3]);
    }

    /**
     * Whether the body is streamed ({@link Client.RequestBuilder#streamResponse()}) rather than buffered.
     *
     * @return true if the body is read with {@link #bodyStream()}, {@link #bodyPublisher()} or {@link #readBody()}
     */
    public boolean isStreamed() {
        return streamed != null;
    }

    /**
     * The length of the body.
     *
     * @return the body's length in bytes; 0 when there is none (a {@code HEAD} request, 204, 304)
     * @throws IllegalStateException if the body is {@linkplain #isStreamed() streamed}
     */
    public int bodyLength() {
        buffered();
        return bodyLength;
    }

    /**
     * The body as a read-only view, without a copy.
     *
     * @return a read-only buffer from position 0 to the body's length; empty when there is no body
     * @throws IllegalStateException if the body is {@linkplain #isStreamed() streamed}
     */
    public ByteBuffer body() {
        buffered();
        return ByteBuffer.wrap(body, 0, bodyLength).slice().asReadOnlyBuffer();
    }

    /**
     * The body as a new array, which the caller owns.
     *
     * @return a copy of the body; empty when there is none
     * @throws IllegalStateException if the body is {@linkplain #isStreamed() streamed}
     */
    public byte[] bodyBytes() {
        buffered();
        byte[] copy = new byte[bodyLength];
        System.arraycopy(body, 0, copy, 0, bodyLength);
        return copy;
    }

    /**
     * The body decoded as UTF-8, whatever its {@code Content-Type} says; malformed sequences become U+FFFD.
     *
     * @return the text; empty when there is no body
     * @throws IllegalStateException if the body is {@linkplain #isStreamed() streamed}
     */
    public String bodyText() {
        buffered();
        return new String(body, 0, bodyLength, StandardCharsets.UTF_8);
    }

    /**
     * The body as a stream. For a streamed response, {@code read} blocks until bytes arrive (so
     * read it off the event loops: in a blocking handler, or on a thread of your own), returns -1
     * at the end, and throws an {@link java.io.IOException} whose cause is the
     * {@link ClientException} if the body cannot complete (the connection closed, the response
     * timeout passed with nothing arriving, the framing broke); closing it early abandons the rest
     * and ends the connection. For a buffered response it reads the buffered bytes.
     *
     * @return the stream; for a streamed response, its body's only consumer
     * @throws IllegalStateException if the streamed body is already being consumed
     */
    public InputStream bodyStream() {
        return streamed != null ? streamed.stream() : new ByteArrayInputStream(body, 0, bodyLength);
    }

    /**
     * The streamed body as chunks with demand, without blocking a thread: the subscriber gets each
     * chunk (its own copy) only as far as it has requested, on the thread that receives it (the
     * event loop, for a request sent on one), then {@code onComplete}, or {@code onError} with an
     * {@link java.io.IOException} caused by the {@link ClientException} if the body cannot
     * complete. Cancelling abandons the rest and ends the connection.
     *
     * @return a publisher that accepts one subscriber
     * @throws IllegalStateException if the body is not {@linkplain #isStreamed() streamed}
     */
    public Flow.Publisher<ByteBuffer> bodyPublisher() {
        if (streamed == null) {
            throw new IllegalStateException("the body is buffered: read it with body(), or send the request with streamResponse()");
        }
        return streamed.publisher();
    }

    /**
     * The whole streamed body once it has arrived, without blocking a thread (at most the
     * client's {@link ClientConfig#maxResponseBodySize()}).
     *
     * @return completes with the body's bytes, or fails with an {@link java.io.IOException}
     *         caused by the {@link ClientException}, or a 413 {@link HttpException} if the body is larger than the limit
     * @throws IllegalStateException if the body is not {@linkplain #isStreamed() streamed}
     */
    public CompletionStage<byte[]> readBody() {
        if (streamed == null) {
            throw new IllegalStateException("the body is buffered: read it with bodyBytes()");
        }
        return streamed.readAll();
    }

    private void buffered() {
        if (streamed != null) {
            throw new IllegalStateException("the body is streamed: read it with bodyStream(), bodyPublisher() or readBody()");
        }
    }

    /**
     * The first value of a trailer field (sent after a chunked body), matched case-insensitively, or null.
     *
     * @param name the field's name, in any case
     * @return the value of the first trailer line with that name, Latin-1, without surrounding
     *         whitespace; null when absent
     */
    public String trailer(String name) {
        int i = indexOf(trailerBytes, trailerFields, trailerCount, name, 0);
        return i < 0 ? null : trailerValue(i);
    }

    /**
     * Every value of a trailer field, matched case-insensitively, one entry per line in the order received.
     *
     * @param name the field's name, in any case
     * @return an unmodifiable list of the values, Latin-1; empty when absent
     */
    public List<String> trailers(String name) {
        return all(trailerBytes, trailerFields, trailerCount, name);
    }

    /**
     * The number of trailer field lines received after a chunked body.
     *
     * @return the count; 0 for a body that was not chunked or had no trailers
     */
    public int trailerCount() {
        return trailerCount;
    }

    /**
     * The name of a trailer field line, as sent.
     *
     * @param i the line's index in the order received, from 0 to {@link #trailerCount()} - 1
     * @return the name, Latin-1
     * @throws IndexOutOfBoundsException if {@code i} is not a line's index
     */
    public String trailerName(int i) {
        return latin1(trailerBytes, trailerFields[check(i, trailerCount) * 4], trailerFields[i * 4 + 1]);
    }

    /**
     * The value of a trailer field line.
     *
     * @param i the line's index in the order received, from 0 to {@link #trailerCount()} - 1
     * @return the value, Latin-1, without surrounding whitespace; possibly empty
     * @throws IndexOutOfBoundsException if {@code i} is not a line's index
     */
    public String trailerValue(int i) {
        return latin1(trailerBytes, trailerFields[check(i, trailerCount) * 4 + 2], trailerFields[i * 4 + 3]);
    }

    @Override
    public String toString() {
        return version() + " " + status + " (" + fieldCount + " header fields, " + (streamed != null ? "streamed body" : bodyLength + " body bytes")
                + (trailerCount > 0 ? ", " + trailerCount + " trailer fields)" : ")");
    }

    private static int check(int i, int count) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("field " + i + " of " + count);
        }
        return i;
    }

    private static String latin1(byte[] bytes, int from, int to) {
        return new String(bytes, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private static List<String> all(byte[] bytes, int[] offsets, int count, String name) {
        List<String> values = null;
        for (int i = indexOf(bytes, offsets, count, name, 0); i >= 0; i = indexOf(bytes, offsets, count, name, i + 1)) {
            if (values == null) {
                values = new ArrayList<>(2);
            }
            values.add(latin1(bytes, offsets[i * 4 + 2], offsets[i * 4 + 3]));
        }
        return values == null ? List.of() : List.copyOf(values);
    }

    /** The index of the first field named {@code name} (any case) at or after {@code from}, or -1. */
    private static int indexOf(byte[] bytes, int[] offsets, int count, String name, int from) {
        int length = name.length();
        for (int i = from; i < count; i++) {
            int start = offsets[i * 4];
            if (offsets[i * 4 + 1] - start == length && equalsIgnoreCase(bytes, start, name)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean equalsIgnoreCase(byte[] bytes, int at, String name) {
        for (int i = 0; i < name.length(); i++) {
            int a = bytes[at + i] & 0xFF;
            int b = name.charAt(i);
            if (a >= 'A' && a <= 'Z') {
                a += 32;
            }
            if (b >= 'A' && b <= 'Z') {
                b += 32;
            }
            if (a != b) {
                return false;
            }
        }
        return true;
    }
}
