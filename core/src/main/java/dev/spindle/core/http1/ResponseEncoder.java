// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.bytes.HttpDate;
import dev.spindle.core.Response;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.exchange.HttpStatus;
import dev.spindle.core.exchange.ResponseState;
import java.nio.charset.StandardCharsets;

/** Writes a {@link Response} as HTTP/1.1 bytes, from pre-encoded status lines and header names. */
final class ResponseEncoder {
    static final int CONNECTION_DEFAULT = 0;
    static final int CONNECTION_CLOSE = 1;
    static final int CONNECTION_KEEP_ALIVE = 2;

    /** {@code HTTP/1.1 NNN Reason\r\n} of every status, encoded once. */
    private static final byte[][] STATUS_LINES = new byte[600][];

    static {
        for (int code = 100; code < 600; code++) {
            STATUS_LINES[code] = bytes("HTTP/1.1 " + code + " " + HttpStatus.reason(code) + "\r\n");
        }
    }

    private static final byte[] SERVER = bytes("Server: spindle\r\n");
    private static final byte[] CONTENT_LENGTH = bytes("Content-Length: ");
    private static final byte[] CONTENT_TYPE = bytes("Content-Type: ");
    private static final byte[] TEXT_PLAIN = bytes("Content-Type: " + Response.TEXT_PLAIN + "\r\n");
    private static final byte[] APPLICATION_JSON = bytes("Content-Type: " + Response.APPLICATION_JSON + "\r\n");
    private static final byte[] CLOSE = bytes("Connection: close\r\n");
    private static final byte[] KEEP_ALIVE = bytes("Connection: keep-alive\r\n");
    private static final byte[] CHUNKED = bytes("Transfer-Encoding: chunked\r\n");
    private static final byte[] CONTINUE = bytes("HTTP/1.1 100 Continue\r\n\r\n");
    private static final byte[] SWITCHING_TO_H2C = bytes("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n");
    private static final byte[] CRLF = bytes("\r\n");
    private static final byte[] COLON = bytes(": ");
    private static final int FIXED_HEADERS = 160;
    /** {@code Content-Length: N\r\n} pre-encoded for the small bodies most responses have. */
    private static final byte[][] CONTENT_LENGTH_LINES = new byte[1024][];

    static {
        for (int n = 0; n < CONTENT_LENGTH_LINES.length; n++) {
            CONTENT_LENGTH_LINES[n] = bytes("Content-Length: " + n + "\r\n");
        }
    }

    private ResponseEncoder() {
    }

    /** The encoded status line of {@code code}, 100 to 599. */
    static byte[] statusLine(int code) {
        return STATUS_LINES[code];
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    static void writeContinue(OutputBuffer out) {
        out.ensure(CONTINUE.length);
        out.put(CONTINUE);
    }

    /** RFC 9113 3.2 (as RFC 7540 3.2 defined it): the answer that accepts {@code Upgrade: h2c}. */
    static void writeSwitchingToH2c(OutputBuffer out) {
        out.ensure(SWITCHING_TO_H2C.length);
        out.put(SWITCHING_TO_H2C);
    }

    static void encode(OutputBuffer out, ResponseState r, boolean omitBody, int connection) {
        String text = r.bodyString;
        byte[] textBytes = null;
        long length;
        if (text != null) {
            if (isAscii(text)) {
                length = text.length();
            } else {
                textBytes = r.bodyText();
                length = textBytes.length;
            }
        } else if (r.bodyArray != null) {
            length = r.bodyLength;
        } else if (r.bodyBuffer != null) {
            length = r.bodyBuffer.remaining();
        } else {
            length = 0;
        }
        boolean noContent = r.status == 204 || r.status == 304;
        boolean writeBody = !omitBody && !noContent;
        head(out, r, noContent ? -1 : length, false, connection, writeBody ? (int) length : 0);
        if (!writeBody) {
            return;
        }
        if (textBytes != null) {
            out.put(textBytes);
        } else if (text != null) {
            out.putAscii(text);
        } else if (r.bodyArray != null) {
            out.put(r.bodyArray, r.bodyOffset, r.bodyLength);
        } else if (r.bodyBuffer != null) {
            out.put(r.bodyBuffer);
        }
    }

    /**
     * The status line and header section of a response whose body is streamed after it:
     * {@code Content-Length} when {@code length} is known, else {@code Transfer-Encoding: chunked}
     * when {@code chunked}, else no framing (the close of the connection ends the body).
     */
    static void encodeStreamedHead(OutputBuffer out, ResponseState r, long length, boolean chunked, int connection) {
        head(out, r, length, chunked, connection, 0);
    }

    /** Status line and header section, ending with the empty line; {@code length} -1 writes no Content-Length. */
    private static void head(OutputBuffer out, ResponseState r, long length, boolean chunked, int connection, int room) {
        int headerBytes = FIXED_HEADERS;
        if (r.contentType != null) {
            headerBytes += r.contentType.length() + 16;
        }
        headerBytes += fieldBytes(r);
        out.ensure(headerBytes + room);
        out.put(STATUS_LINES[r.status]);
        out.put(SERVER);
        out.put(HttpDate.line());
        if (r.contentType != null) {
            contentType(out, r.contentType);
        }
        if (length >= 0) {
            if (length < CONTENT_LENGTH_LINES.length) {
                out.put(CONTENT_LENGTH_LINES[(int) length]);
            } else {
                out.put(CONTENT_LENGTH);
                out.putDecimal(length);
                out.put(CRLF);
            }
        } else if (chunked) {
            out.put(CHUNKED);
        }
        if (connection == CONNECTION_CLOSE) {
            out.put(CLOSE);
        } else if (connection == CONNECTION_KEEP_ALIVE) {
            out.put(KEEP_ALIVE);
        }
        fieldsAndEnd(out, r);
    }

    /**
     * The 101 that switches a connection to WebSocket (RFC 6455 4.2.2): the accept key, the
     * sub-protocol and extension agreed on, and the header fields the filters and route set (such
     * as cookies); no body, no length (RFC 9110 8.6).
     */
    static void encodeWebSocketSwitch(OutputBuffer out, ResponseState r, dev.spindle.core.websocket.WebSocketAccept accept) {
        String extensions = accept.extensions();
        int bytes = FIXED_HEADERS + 160 + (accept.subprotocol == null ? 0 : accept.subprotocol.length())
                + (extensions == null ? 0 : extensions.length()) + fieldBytes(r);
        out.ensure(bytes);
        out.put(STATUS_LINES[101]);
        out.put(SERVER);
        out.put(HttpDate.line());
        out.putAscii("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ");
        out.putAscii(accept.accept);
        out.put(CRLF);
        if (accept.subprotocol != null) {
            out.putAscii("Sec-WebSocket-Protocol: ");
            out.putAscii(accept.subprotocol);
            out.put(CRLF);
        }
        if (extensions != null) {
            out.putAscii("Sec-WebSocket-Extensions: ");
            out.putAscii(extensions);
            out.put(CRLF);
        }
        fieldsAndEnd(out, r);
    }

    /** The bytes the handler's header fields take, encoded. */
    private static int fieldBytes(ResponseState r) {
        int bytes = 0;
        for (int i = 0; i < r.headerCount; i++) {
            bytes += r.headerNames[i].length() + r.headerValues[i].length() + 4;
        }
        return bytes;
    }

    /** The handler's header fields, then the empty line that ends the header section. */
    private static void fieldsAndEnd(OutputBuffer out, ResponseState r) {
        for (int i = 0; i < r.headerCount; i++) {
            out.putAscii(r.headerNames[i]);
            out.put(COLON);
            out.putAscii(r.headerValues[i]);
            out.put(CRLF);
        }
        out.put(CRLF);
    }

    private static void contentType(OutputBuffer out, String type) {
        if (type == Response.TEXT_PLAIN) {
            out.put(TEXT_PLAIN);
        } else if (type == Response.APPLICATION_JSON) {
            out.put(APPLICATION_JSON);
        } else {
            out.put(CONTENT_TYPE);
            out.putAscii(type);
            out.put(CRLF);
        }
    }

    private static boolean isAscii(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** A short text response explaining an error; {@code retryAfter} is the value of a {@code Retry-After}, or null for none. */
    static void error(OutputBuffer out, ResponseState scratch, int status, String message, String retryAfter, int connection,
            boolean omitBody) {
        scratch.reset();
        scratch.api.status(status);
        if (retryAfter != null) {
            scratch.api.header("Retry-After", retryAfter);
        }
        scratch.api.text(status + " " + HttpStatus.reason(status) + ": " + message + "\n");
        encode(out, scratch, omitBody, connection);
    }

    /** Encodes a standalone response, for answering without a connection (e.g. load shedding). */
    static byte[] standalone(int status, String message) {
        OutputBuffer out = new OutputBuffer(512);
        error(out, new ResponseState(), status, message, null, CONNECTION_CLOSE, false);
        byte[] result = new byte[out.pending()];
        out.view().get(result);
        return result;
    }
}
