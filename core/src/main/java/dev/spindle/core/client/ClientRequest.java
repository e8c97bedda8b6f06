// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.Ascii;
import java.util.Arrays;
import java.util.Locale;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.Flow;

/**
 * One request for a {@link ClientConnection}: method, origin-form target, header fields, an
 * optional body of known length, and whether to ask the server to close the connection after it.
 * Everything is checked as it is set, so a bad value fails where the caller gives it
 * ({@link IllegalArgumentException}) and never on the connection's loop; {@link RequestEncoder}
 * writes what is here without checking again. The framing fields ({@code Content-Length},
 * {@code Transfer-Encoding}, {@code Connection} and the like) are the client's to write, from the
 * body and {@link #closeConnection()}; {@code Host} is the destination's unless set here.
 *
 * <p>Filled in by one thread, then handed to {@link ClientConnection#send}; it must not change
 * after that (its body array included) until the response completes.
 */
public final class ClientRequest {
    private static final int MAX_DESCRIBED_TARGET = 200;

    private final String method;
    /** The target is {@code targetSource[targetFrom, targetTo)}: often a region of the address given, not cut out unless asked for. */
    private final String targetSource;
    private final int targetFrom;
    private final int targetTo;
    private String target;
    private final boolean head;
    private final boolean idempotent;
    private final boolean bodyExpected;
    /** Names and values, alternately. */
    private static final String[] NO_FIELDS = new String[0];

    /** Name and value of each field the caller added; most requests add none, so none is allocated until then. */
    private String[] fields = NO_FIELDS;
    private int fieldCount;
    private boolean hostSet;
    private byte[] body;
    /** A streamed body, and its announced length (-1: chunked); taken (subscribed to) at most once. */
    private Flow.Publisher<ByteBuffer> bodySource;
    private long bodySourceLength;
    private boolean bodyTaken;
    private boolean close;
    private boolean streamResponse;
    /** Its own response timeout in nanoseconds; negative: the connection's. */
    private long responseNanos = -1;
    /** When the whole call must have its response ({@link System#nanoTime()}), and the timeout it came from; 0: none. */
    private long deadline;
    private long totalNanos;

    /**
     * A request without header fields or body.
     *
     * @param method the method, a token such as {@code GET}, case-sensitive
     * @param target the origin-form target: an absolute path and optional query, such as
     *        {@code /users/7?full=1}, already percent-encoded; {@code *} for {@code OPTIONS}
     * @throws IllegalArgumentException if the method is not a token, or the target not origin-form
     *         or holds a character a request line cannot carry
     */
    public ClientRequest(String method, String target) {
        this(method, Objects.requireNonNull(target, "target"), 0, target.length());
    }

    /**
     * A request whose target is {@code source[from, to)}, checked as {@link #ClientRequest(String, String)} checks it.
     *
     * @param method the method
     * @param source the string the target is part of (an absolute address, say)
     * @param from where the target starts in it
     * @param to where it ends
     */
    public ClientRequest(String method, String source, int from, int to) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(source, "source");
        Objects.checkFromToIndex(from, to, source.length());
        if (method.isEmpty() || !isToken(method)) {
            throw new IllegalArgumentException("the method must be a token (RFC 9110 9.1), got \"" + printable(method) + "\"");
        }
        checkTarget(method, source, from, to);
        this.method = method;
        this.targetSource = source;
        this.targetFrom = from;
        this.targetTo = to;
        this.head = method.equals("HEAD");
        this.idempotent = switch (method) {
            case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE" -> true;
            default -> false;
        };
        this.bodyExpected = switch (method) {
            case "POST", "PUT", "PATCH" -> true;
            default -> false;
        };
    }

    /**
     * A {@code GET} request.
     *
     * @param target the origin-form target, such as {@code /delay/100}
     * @return the request
     * @throws IllegalArgumentException if the target is not origin-form
     */
    public static ClientRequest get(String target) {
        return new ClientRequest("GET", target);
    }

    /**
     * Adds a header field line (a name given twice is sent twice, in order).
     *
     * @param name the field name, a token
     * @param value the field value: Latin-1 characters, no CR, LF, NUL or other control character but HTAB
     * @return this request
     * @throws IllegalArgumentException if the name is not a token, is a framing field the client
     *         writes itself, or {@code Host} a second time; or if the value holds a forbidden character
     */
    public ClientRequest header(String name, String value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        if (name.isEmpty() || !isToken(name)) {
            throw new IllegalArgumentException("header name must be a token (RFC 9110 5.1), got \"" + printable(name) + "\"");
        }
        String reserved = reservedField(name);
        if (reserved != null) {
            throw new IllegalArgumentException("header " + name + " is the client's to write: " + reserved);
        }
        if (name.equalsIgnoreCase("host")) {
            if (hostSet) {
                throw new IllegalArgumentException("header Host given twice");
            }
            hostSet = true;
        }
        checkValue(name, value);
        if (fieldCount * 2 == fields.length) {
            fields = Arrays.copyOf(fields, Math.max(8, fields.length * 2));
        }
        fields[fieldCount * 2] = name;
        fields[fieldCount * 2 + 1] = value;
        fieldCount++;
        return this;
    }

    /**
     * The body, sent with its {@code Content-Length}; replaces an earlier one. The array is not
     * copied: it must not change until the response completes.
     *
     * @param body the bytes to send; empty sends {@code Content-Length: 0}
     * @return this request
     */
    public ClientRequest body(byte[] body) {
        this.body = Objects.requireNonNull(body, "body");
        this.bodySource = null;
        return this;
    }

    /**
     * A body streamed from {@code source} as the connection drains, with demand: with
     * {@code Content-Length} when {@code length} is known, else chunked. Replaces an earlier body.
     * The source is subscribed to once, when the request's turn comes on its connection; the
     * request carries no other request behind it until the body is sent, and it is not sent again
     * after a failure once the body was taken.
     *
     * @param source the body's bytes; each buffer is read from its position to its limit
     * @param length the exact length in bytes, or -1 when unknown (chunked)
     * @return this request
     * @throws IllegalArgumentException if {@code length} is less than -1
     */
    public ClientRequest body(Flow.Publisher<ByteBuffer> source, long length) {
        if (length < -1) {
            throw new IllegalArgumentException("length must be -1 (unknown) or more, got " + length);
        }
        this.bodySource = Objects.requireNonNull(source, "source");
        this.bodySourceLength = length;
        this.body = null;
        return this;
    }

    /**
     * Asks the server to close the connection after answering ({@code Connection: close}); the
     * connection takes no request after this one.
     *
     * @return this request
     */
    public ClientRequest closeConnection() {
        this.close = true;
        return this;
    }

    /**
     * Asks for the response's body streamed: the response completes once its head has arrived,
     * and its body is read as it arrives, at the reader's pace (see {@link dev.spindle.core.ClientResponse#bodyStream()}).
     *
     * @return this request
     */
    public ClientRequest streamResponse() {
        this.streamResponse = true;
        return this;
    }

    /** {@return whether the response is to be streamed} */
    public boolean streamsResponse() {
        return streamResponse;
    }

    /**
     * A response timeout for this request alone, instead of the connection's
     * ({@link ClientSettings#responseTimeout()}).
     *
     * @param timeout from the request being handed to the socket to the last byte of its response; zero for none
     * @return this request
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    public ClientRequest responseTimeout(java.time.Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("the response timeout must not be negative: " + timeout);
        }
        this.responseNanos = timeout.toNanos();
        return this;
    }

    /**
     * A deadline for the whole call (the total timeout): its response (its head, for a streamed
     * one) must have arrived by then, or the call fails with {@code TOTAL_TIMEOUT}, wherever it is
     * (waiting for a connection, connecting, sent). Set when the call starts; a redirect or a
     * retry keeps it.
     *
     * @param deadline the time by {@link System#nanoTime()}
     * @param totalNanos the timeout it came from, for the message
     * @return this request
     */
    public ClientRequest deadline(long deadline, long totalNanos) {
        this.deadline = deadline;
        this.totalNanos = totalNanos;
        return this;
    }

    /** {@return whether the call has a deadline} */
    public boolean hasDeadline() {
        return totalNanos > 0;
    }

    /** {@return the call's deadline, by {@link System#nanoTime()}; meaningful when {@link #hasDeadline()}} */
    public long deadline() {
        return deadline;
    }

    /** {@return the total timeout the deadline came from, in nanoseconds; 0 for none} */
    public long totalNanos() {
        return totalNanos;
    }

    /** {@return the message of a call past its deadline} */
    String totalTimeoutDetail() {
        return "no response within " + totalNanos / 1_000_000 + " ms of the call (total timeout)";
    }

    /** Its response timeout in nanoseconds: its own, else {@code connectionDefault}; zero for none. */
    long responseNanos(long connectionDefault) {
        return responseNanos >= 0 ? responseNanos : connectionDefault;
    }

    /**
     * The method.
     *
     * @return the method token
     */
    public String method() {
        return method;
    }

    /**
     * The target.
     *
     * @return the origin-form target
     */
    public String target() {
        String t = target;
        if (t == null) {
            t = targetFrom == 0 && targetTo == targetSource.length() ? targetSource : targetSource.substring(targetFrom, targetTo);
            target = t;
        }
        return t;
    }

    /** The string the target is a region of, and the region: what the encoder copies, without a substring. */
    String targetSource() {
        return targetSource;
    }

    int targetFrom() {
        return targetFrom;
    }

    int targetTo() {
        return targetTo;
    }

    /** {@return how many header fields the caller added} */
    public int fieldCount() {
        return fieldCount;
    }

    /** {@return the name of the caller's {@code i}-th field} */
    public String fieldName(int i) {
        return fields[i * 2];
    }

    /** {@return the value of the caller's {@code i}-th field} */
    public String fieldValue(int i) {
        return fields[i * 2 + 1];
    }

    /** {@return the buffered body, or null when there is none or it is streamed} */
    public byte[] bufferedBody() {
        return body;
    }

    /** {@return whether the body is streamed from a source, which is taken once} */
    public boolean hasStreamedBody() {
        return bodySource != null;
    }

    /** {@return its own response timeout, or null for the connection's} */
    public java.time.Duration ownResponseTimeout() {
        return responseNanos < 0 ? null : java.time.Duration.ofNanos(responseNanos);
    }

    /**
     * The method and target, for messages (a very long target is cut short).
     *
     * @return such as {@code GET /delay/100}
     */
    public String describe() {
        String t = target();
        return method + " " + (t.length() > MAX_DESCRIBED_TARGET ? t.substring(0, MAX_DESCRIBED_TARGET) + "..." : t);
    }

    @Override
    public String toString() {
        return describe();
    }

    boolean isHead() {
        return head;
    }

    /** RFC 9110 9.2.2: it may be sent again, and may have requests pipelined after it (RFC 9112 9.3.2). */
    boolean isIdempotent() {
        return idempotent;
    }

    /** A method whose request usually has content: without a body it still says {@code Content-Length: 0} (RFC 9110 8.6). */
    boolean bodyExpected() {
        return bodyExpected;
    }

    boolean hostSet() {
        return hostSet;
    }

    boolean closes() {
        return close;
    }

    byte[] bodyBytes() {
        return body;
    }

    /** Whether the body is streamed from a source. */
    boolean streamsBody() {
        return bodySource != null;
    }

    long streamedBodyLength() {
        return bodySourceLength;
    }

    /** The streamed body's source, taken once: the request cannot be sent again afterwards. */
    Flow.Publisher<ByteBuffer> takeBodySource() {
        bodyTaken = true;
        return bodySource;
    }

    /** Whether the request may be sent again (on another connection): not once its streamed body was taken. */
    boolean resendable() {
        return !bodyTaken;
    }

    /** Why a field may not be set by the caller, or null if it may. */
    private static String reservedField(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "content-length" -> "it follows from the body";
            case "transfer-encoding", "te", "trailer" -> "bodies are sent with a Content-Length, and only chunked is understood";
            case "connection", "keep-alive" -> "use closeConnection() to ask for a close";
            case "upgrade" -> "the client does not switch protocols";
            default -> null;
        };
    }

    private static void checkTarget(String method, String source, int from, int to) {
        if (to - from == 1 && source.charAt(from) == '*') {
            if (!method.equals("OPTIONS")) {
                throw new IllegalArgumentException("the target * is for OPTIONS only (RFC 9112 3.2.4)");
            }
            return;
        }
        if (to == from || source.charAt(from) != '/') {
            throw new IllegalArgumentException("the target must be origin-form, an absolute path such as /a?b=c, got \""
                    + printable(source.substring(from, to)) + "\"");
        }
        for (int i = from; i < to; i++) {
            char c = source.charAt(i);
            if (c < 0x21 || c > 0x7E || c == '#') {
                throw new IllegalArgumentException("the target holds " + describeChar(c) + " at index " + (i - from)
                        + ": percent-encode it (a fragment, after #, is not sent), in \"" + printable(source.substring(from, to)) + "\"");
            }
        }
    }

    private static void checkValue(String name, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0xFF || c < 0x20 && c != '\t' || c == 0x7F) {
                throw new IllegalArgumentException("the value of header " + name + " holds " + describeChar(c) + " at index " + i
                        + (c > 0xFF ? ": field values are Latin-1" : ": a control character would break the header section"));
            }
        }
    }

    private static boolean isToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0x7F || !Ascii.isTchar((byte) c)) {
                return false;
            }
        }
        return true;
    }

    private static String describeChar(char c) {
        return switch (c) {
            case '\r' -> "a CR";
            case '\n' -> "an LF";
            case 0 -> "a NUL";
            case ' ' -> "a space";
            default -> c < 0x20 || c == 0x7F || c > 0xFF ? String.format("U+%04X", (int) c) : "'" + c + "'";
        };
    }

    /** {@code s} with control characters escaped, so a message shows what was given. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length() && i < MAX_DESCRIBED_TARGET; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\r' -> b.append("\\r");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20 || c == 0x7F) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return s.length() > MAX_DESCRIBED_TARGET ? b.append("...").toString() : b.toString();
    }
}
