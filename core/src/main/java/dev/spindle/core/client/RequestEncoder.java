// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.OutputBuffer;

import java.nio.charset.StandardCharsets;

/**
 * Writes a {@link ClientRequest} as HTTP/1.1 (RFC 9112 3): the request line in origin-form,
 * {@code Host} (the destination's, unless the request sets its own), the request's header fields
 * in order, {@code Content-Length} for a body (and {@code 0} for a bodiless {@code POST},
 * {@code PUT} or {@code PATCH}, RFC 9110 8.6; nothing for a bodiless {@code GET} or {@code HEAD}),
 * {@code Connection: close} when the request asks, then the body. A streamed body's head says its
 * {@code Content-Length}, or {@code Transfer-Encoding: chunked} when its length is unknown; its
 * bytes follow as they come ({@link RequestUpload}). The request was checked as it was built, so
 * nothing is checked here; a whole request is encoded at once, into one buffer.
 */
final class RequestEncoder {
    private static final byte[] VERSION_CRLF = bytes(" HTTP/1.1\r\n");
    private static final byte[] HOST = bytes("Host: ");
    private static final byte[] CONTENT_LENGTH = bytes("Content-Length: ");
    private static final byte[] TRANSFER_ENCODING_CHUNKED = bytes("Transfer-Encoding: chunked\r\n");
    private static final byte[] CONNECTION_CLOSE = bytes("Connection: close\r\n");
    private static final byte[] COLON_SP = bytes(": ");
    private static final byte[] CRLF = bytes("\r\n");
    /** The longest decimal {@code Content-Length} value. */
    private static final int MAX_DECIMAL = 19;

    private RequestEncoder() {
    }

    /**
     * Encodes {@code request} for {@code authority} at the end of {@code out}.
     *
     * @param request the request
     * @param authority the destination as {@code host:port}, the {@code Host} value unless the request sets one
     * @param out where the bytes go
     */
    static void encode(ClientRequest request, String authority, OutputBuffer out) {
        byte[] body = request.bodyBytes();
        int size = request.method().length() + 1 + request.targetTo() - request.targetFrom() + VERSION_CRLF.length + 2;
        if (!request.hostSet()) {
            size += HOST.length + authority.length() + 2;
        }
        for (int i = 0; i < request.fieldCount(); i++) {
            size += request.fieldName(i).length() + 2 + request.fieldValue(i).length() + 2;
        }
        long streamed = request.streamsBody() ? request.streamedBodyLength() : -2;
        boolean chunked = streamed == -1;
        boolean length = !chunked && (streamed >= 0 || body != null || request.bodyExpected());
        if (length) {
            size += CONTENT_LENGTH.length + MAX_DECIMAL + 2;
        }
        if (chunked) {
            size += TRANSFER_ENCODING_CHUNKED.length;
        }
        if (request.closes()) {
            size += CONNECTION_CLOSE.length;
        }
        out.ensure(size + (body != null ? body.length : 0));
        out.putAscii(request.method());
        out.put((byte) ' ');
        out.putAscii(request.targetSource(), request.targetFrom(), request.targetTo());
        out.put(VERSION_CRLF);
        if (!request.hostSet()) {
            out.put(HOST);
            out.putAscii(authority);
            out.put(CRLF);
        }
        for (int i = 0; i < request.fieldCount(); i++) {
            out.putAscii(request.fieldName(i));
            out.put(COLON_SP);
            out.putAscii(request.fieldValue(i));
            out.put(CRLF);
        }
        if (length) {
            out.put(CONTENT_LENGTH);
            out.putDecimal(streamed >= 0 ? streamed : body != null ? body.length : 0);
            out.put(CRLF);
        }
        if (chunked) {
            out.put(TRANSFER_ENCODING_CHUNKED);
        }
        if (request.closes()) {
            out.put(CONNECTION_CLOSE);
        }
        out.put(CRLF);
        if (body != null) {
            out.put(body);
        }
    }

    /** A destination fit to be the {@code Host} of requests: {@code host:port}, visible ASCII, no delimiter of a URI. */
    static String checkAuthority(String authority) {
        if (authority.isEmpty()) {
            throw new IllegalArgumentException("the destination (host:port) is empty");
        }
        for (int i = 0; i < authority.length(); i++) {
            char c = authority.charAt(i);
            if (c <= 0x20 || c >= 0x7F || c == '/' || c == '?' || c == '#' || c == '@') {
                throw new IllegalArgumentException("the destination must be host:port, got \"" + authority + "\"");
            }
        }
        return authority;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
