// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.http2.HpackDecoder;
import dev.spindle.core.http2.Http2Codec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * One request on an {@link Http2ClientConnection}: its stream's windows, the request body going out
 * in DATA frames, and the response coming in, checked as RFC 9113 8.3.2 and 8.2 ask (one
 * {@code :status} before any field, lower-case names, no connection-specific field, a
 * {@code content-length} the DATA frames match) and built into the same {@link ClientResponse} as
 * over HTTP/1.1. A malformed response is a {@link ResponseException}: the connection resets the
 * stream and fails the request. On the connection's thread.
 */
final class Http2ClientStream implements HpackDecoder.Sink {
    private static final ClientApiAccess API = ClientApiAccess.get();
    private static final int BODY_INITIAL_BYTES = 1024;
    private static final String[] CONNECTION_SPECIFIC = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"};

    final ClientCall call;
    final int id;
    /** What this side may still send on the stream (the server's window for it). */
    int sendWindow;
    /** What the server may still send on the stream, and what was consumed and not yet given back. */
    int receiveWindow;
    int unacknowledged;
    /** END_STREAM sent (the request is whole), and received (the response is). */
    boolean endSent;
    boolean remoteEnded;

    private final byte[] body;
    private int bodyOffset;
    private RequestUpload upload;
    private OutputBuffer staged;
    private boolean uploadDone;

    private int status = -1;
    private boolean headDone;
    private final Fields head = new Fields();
    private Fields trailers;
    /** Decoding the trailer section (a HEADERS block after the final head). */
    private boolean decodingTrailers;
    private String malformed;
    private long contentLength = -1;
    private long received;
    private byte[] responseBody;
    private int responseLength;
    /** Body bytes the reader of a streamed response had no room for: at most the stream's window. */
    final InputStash stash = new InputStash();

    Http2ClientStream(ClientCall call, int id, int sendWindow, int receiveWindow, Runnable wakeup) {
        this.call = call;
        this.id = id;
        this.sendWindow = sendWindow;
        this.receiveWindow = receiveWindow;
        ClientRequest r = call.request;
        this.body = r.bodyBytes();
        if (r.streamsBody()) {
            upload = RequestUpload.start(call, wakeup, false);
            staged = new OutputBuffer(1024);
        }
    }

    /** {@return whether the request has a body to send} */
    boolean hasBody() {
        return body != null && body.length > 0 || upload != null;
    }

    /**
     * Writes one DATA frame of at most {@code max} bytes if the body has any ready (or its end).
     *
     * @return the payload bytes written; 0 for an empty last frame; -1 if nothing is ready
     * @throws ResponseException if a streamed body's source failed
     */
    int nextData(Http2Codec codec, int max, LongSupplier clock) {
        if (endSent) {
            return -1;
        }
        if (upload == null) {
            int n = Math.min(max, body.length - bodyOffset);
            boolean last = bodyOffset + n == body.length;
            codec.data(id, body, bodyOffset, n, last);
            bodyOffset += n;
            endSent = last;
            return n;
        }
        if (!uploadDone && staged.pending() < max) {
            uploadDone = upload.pump(staged, clock) == RequestUpload.Progress.DONE;
        }
        int ready = staged.pending();
        if (ready == 0 && !uploadDone) {
            return -1;
        }
        int n = Math.min(max, ready);
        boolean last = uploadDone && n == ready;
        codec.data(id, staged.view(), n, last);
        staged.written(n);
        endSent = last;
        return n;
    }


    /** The request is abandoned: a streamed body's source stops. */
    void cancel() {
        if (upload != null && !uploadDone) {
            upload.cancel();
        }
        stash.clear();
    }

    /** {@return whether the final response head arrived} */
    boolean headDone() {
        return headDone;
    }

    /** A header block of this stream begins (the head, an informational head, or the trailers). */
    void beginBlock() {
        malformed = null;
        decodingTrailers = headDone;
        if (decodingTrailers) {
            trailers = new Fields();
        } else {
            status = -1;
            head.clear();
            contentLength = -1;
        }
    }

    @Override
    public void header(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength) {
        if (malformed != null) {
            return;
        }
        Fields into = decodingTrailers ? trailers : head;
        if (nameLength == 0) {
            malformed = "an empty field name";
        } else if (name[nameOffset] == ':') {
            if (decodingTrailers || into.count > 0 || status >= 0 || !is(name, nameOffset, nameLength, ":status")) {
                malformed = "the pseudo-header " + latin1(name, nameOffset, nameLength) + " in a response (only :status, first)";
            } else {
                status = status(value, valueOffset, valueLength);
            }
        } else if ((malformed = fieldError(name, nameOffset, nameLength, value, valueOffset, valueLength)) == null) {
            if (!decodingTrailers && is(name, nameOffset, nameLength, "content-length")) {
                contentLength = contentLength(value, valueOffset, valueLength);
            }
            into.add(name, nameOffset, nameLength, value, valueOffset, valueLength);
        }
    }

    /**
     * The block begun was decoded.
     *
     * @param listFits false if the header list passed the limit
     * @param maxFields the most fields a section may hold
     * @return true once a final response head is complete; false for an informational one or trailers
     * @throws ResponseException if the block is malformed
     */
    boolean blockDecoded(boolean listFits, int maxFields, boolean endStream, long maxBodySize, ResponseStream.Driver driver, long now) {
        if (!listFits) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, "a header section larger than the limit");
        }
        if (malformed != null) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, malformed);
        }
        if ((decodingTrailers ? trailers : head).count > maxFields) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, "more than " + maxFields + " header fields");
        }
        if (decodingTrailers) {
            if (!endStream) {
                throw new ResponseException(Reason.MALFORMED_RESPONSE, "a second header section without END_STREAM");
            }
            return false;
        }
        if (status < 0) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, "a response without :status");
        }
        if (status < 200) {
            if (status == 101 || endStream) {
                throw new ResponseException(Reason.MALFORMED_RESPONSE, "an informational " + status + (endStream ? " ending the stream" : " over HTTP/2"));
            }
            return false;
        }
        headDone = true;
        if (contentLength > maxBodySize && !call.request.streamsResponse()) {
            throw new ResponseException(Reason.BODY_TOO_LARGE, "the response announces a body of " + contentLength
                    + " bytes, more than the limit of " + maxBodySize);
        }
        if (call.request.streamsResponse()) {
            long length = endStream || call.request.isHead() ? 0 : contentLength;
            call.stream = new ResponseStream(length, driver, now);
            call.response = API.streamedResponse(status, "HTTP/2", head.bytes(), 0, 0, head.offsets(), head.count,
                    call.stream.body, maxBodySize);
        }
        return true;
    }

    /**
     * Body bytes arrived: buffered up to the limit, or offered to a streamed body's reader (what it
     * does not take is kept).
     *
     * @return how many were consumed (given back to the server's window now)
     */
    int body(ByteBuffer data, long maxBodySize, long now) {
        int n = data.remaining();
        received += n;
        if (contentLength >= 0 && received > contentLength || call.request.isHead() && n > 0) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, "more DATA than the content-length of " + contentLength);
        }
        if (call.stream != null) {
            int taken = stash.isEmpty() ? call.stream.offer(data, now) : 0;
            data.position(data.position() + taken);
            if (data.hasRemaining()) {
                stash.keep(data);
            }
            return taken;
        }
        if ((long) responseLength + n > maxBodySize) {
            throw new ResponseException(Reason.BODY_TOO_LARGE, "the response body is larger than the limit of " + maxBodySize + " bytes");
        }
        if (responseBody == null) {
            int first = contentLength >= 0 ? (int) contentLength : Math.max(n, BODY_INITIAL_BYTES);
            responseBody = new byte[Math.max(first, n)];
        } else if (responseLength + n > responseBody.length) {
            responseBody = Arrays.copyOf(responseBody, (int) Math.min(Math.max(2L * responseBody.length, (long) responseLength + n), maxBodySize));
        }
        data.get(responseBody, responseLength, n);
        responseLength += n;
        return n;
    }

    /** Feeds what a streamed body's reader had no room for; {@return how many bytes it took} */
    int feedStash(long now) {
        if (stash.isEmpty() || call.stream == null) {
            return 0;
        }
        ByteBuffer kept = stash.take();
        int taken = call.stream.offer(kept, now);
        kept.position(kept.position() + taken);
        if (kept.hasRemaining()) {
            stash.keep(kept);
        }
        return taken;
    }

    /**
     * The stream ended (END_STREAM): checks the length; a buffered response is built.
     *
     * @return the buffered response, or null for a streamed one (its body ends)
     */
    ClientResponse ended() {
        if (contentLength >= 0 && received != contentLength && !call.request.isHead() && status != 204 && status != 304) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, "a body of " + received + " bytes where the content-length said " + contentLength);
        }
        if (call.stream != null) {
            return null;
        }
        Fields t = trailers;
        return API.response(status, "HTTP/2", head.bytes(), 0, 0, head.offsets(), head.count, responseBody, responseLength,
                t == null ? null : t.bytes(), t == null ? null : t.offsets(), t == null ? 0 : t.count);
    }

    /** {@return whether a streamed body's reader has taken everything that arrived} */
    boolean drained() {
        return stash.isEmpty();
    }

    private static String fieldError(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength) {
        for (int i = nameOffset; i < nameOffset + nameLength; i++) {
            byte b = name[i];
            if (b >= 'A' && b <= 'Z' || b <= 0x20 || b >= 0x7F || b == ':') {
                return "the field name " + latin1(name, nameOffset, nameLength) + " (upper case or not a token)";
            }
        }
        for (int i = valueOffset; i < valueOffset + valueLength; i++) {
            byte b = value[i];
            if (b == 0 || b == '\r' || b == '\n') {
                return "a NUL, CR or LF in the value of " + latin1(name, nameOffset, nameLength);
            }
        }
        for (String connectionSpecific : CONNECTION_SPECIFIC) {
            if (is(name, nameOffset, nameLength, connectionSpecific)) {
                return "the connection-specific field " + connectionSpecific + " (RFC 9113 8.2.2)";
            }
        }
        return null;
    }

    private static int status(byte[] v, int offset, int length) {
        if (length != 3) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, ":status " + latin1(v, offset, length));
        }
        int code = 0;
        for (int i = offset; i < offset + 3; i++) {
            if (v[i] < '0' || v[i] > '9') {
                throw new ResponseException(Reason.MALFORMED_RESPONSE, ":status " + latin1(v, offset, length));
            }
            code = code * 10 + v[i] - '0';
        }
        if (code < 100) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, ":status " + code);
        }
        return code;
    }

    private static long contentLength(byte[] v, int offset, int length) {
        long n = 0;
        if (length == 0 || length > 18) {
            throw new ResponseException(Reason.MALFORMED_RESPONSE, "content-length " + latin1(v, offset, length));
        }
        for (int i = offset; i < offset + length; i++) {
            if (v[i] < '0' || v[i] > '9') {
                throw new ResponseException(Reason.MALFORMED_RESPONSE, "content-length " + latin1(v, offset, length));
            }
            n = n * 10 + v[i] - '0';
        }
        return n;
    }

    private static boolean is(byte[] b, int offset, int length, String s) {
        if (length != s.length()) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (b[offset + i] != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static String latin1(byte[] b, int offset, int length) {
        return new String(b, offset, Math.min(length, 64), java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** A header or trailer section as names and values in one array, with four offsets per field as {@link ClientResponse} keeps them. */
    private static final class Fields {
        private byte[] bytes = new byte[256];
        private int length;
        private int[] offsets = new int[32];
        int count;

        void add(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength) {
            if (length + nameLength + valueLength > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + nameLength + valueLength));
            }
            if (count * 4 + 4 > offsets.length) {
                offsets = Arrays.copyOf(offsets, offsets.length * 2);
            }
            int at = count * 4;
            offsets[at] = length;
            System.arraycopy(name, nameOffset, bytes, length, nameLength);
            length += nameLength;
            offsets[at + 1] = length;
            offsets[at + 2] = length;
            System.arraycopy(value, valueOffset, bytes, length, valueLength);
            length += valueLength;
            offsets[at + 3] = length;
            count++;
        }

        void clear() {
            length = 0;
            count = 0;
        }

        byte[] bytes() {
            return Arrays.copyOf(bytes, length);
        }

        int[] offsets() {
            return Arrays.copyOf(offsets, count * 4);
        }
    }
}
