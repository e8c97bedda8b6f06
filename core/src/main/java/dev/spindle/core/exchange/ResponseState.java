// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.JsonCodec;
import dev.spindle.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * A response as the handler left it, which a protocol's encoder reads: status, headers and one
 * body source. The application writes it only through {@link #api}, whose setters validate
 * what they store; each connection makes one and reuses it per exchange.
 */
public final class ResponseState {
    /** The application's view of this state. */
    public final Response api = ApiAccess.get().response(this);

    public int status = 200;
    public String contentType;
    public String[] headerNames = new String[4];
    public String[] headerValues = new String[4];
    public int headerCount;
    public byte[] bodyArray;
    public int bodyOffset;
    public int bodyLength;
    public ByteBuffer bodyBuffer;
    public String bodyString;
    public InputStream bodyStream;
    public Response.BodyWriter bodyWriter;
    /** A body the connection takes from without a producer thread (an event stream), or null. */
    public BodySource bodySource;
    public FileChannel bodyFile;
    /** Length of a streamed body, or -1 when unknown. */
    public long streamLength = -1;
    /** The stage {@code Response.sent()} handed out for a streamed body, or null. */
    public CompletableFuture<Long> sent;

    /** The WebSocket a handshake route agreed on: the connection switches protocols instead of answering; or null. */
    public dev.spindle.core.websocket.WebSocketAccept webSocket;

    /** The codec of the route being answered, set by whoever dispatches the request. */
    public JsonCodec jsonCodec;

    public void reset() {
        if (sent != null) {
            // replaced before it was sent (a failure answered instead): nothing of it went out
            sent.complete(-1L);
            sent = null;
        }
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
        cancelSource();
        bodyFile = null;
        streamLength = -1;
        webSocket = null;
    }

    /** A source that will not be sent lets go, so whoever holds its stream learns it closed. */
    private void cancelSource() {
        if (bodySource != null) {
            bodySource.cancel();
            bodySource = null;
        }
    }

    /**
     * Like {@link #reset()} but keeps the first {@code headers} header fields: what filters set
     * before a handler that failed (CORS, request ids) stays on the error answer.
     */
    public void resetKeepingHeaders(int headers) {
        int keep = Math.min(headers, headerCount);
        String[] names = keep == 0 ? null : Arrays.copyOf(headerNames, keep);
        String[] values = keep == 0 ? null : Arrays.copyOf(headerValues, keep);
        reset();
        if (keep > 0) {
            System.arraycopy(names, 0, headerNames, 0, keep);
            System.arraycopy(values, 0, headerValues, 0, keep);
            headerCount = keep;
        }
    }

    /** The stage {@code Response.sent()} handed out for a streamed body, now the connection's to complete; null if none was asked for. */
    public CompletableFuture<Long> takeSent() {
        CompletableFuture<Long> s = sent;
        sent = null;
        return s;
    }

    /** Closes a streamed body's source that will not be sent (a failed or HEAD response). */
    public void closeStreamedBody() {
        try {
            if (bodyStream != null) {
                bodyStream.close();
            }
            if (bodyFile != null) {
                bodyFile.close();
            }
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(ResponseState.class).debug("closing a response body: {}", e.toString());
        }
        bodyStream = null;
        bodyFile = null;
        bodyWriter = null;
        cancelSource();
    }

    /** Adds a header field the server made, its name and value known to be valid. */
    public void addHeader(String name, String value) {
        if (headerCount == headerNames.length) {
            headerNames = Arrays.copyOf(headerNames, headerCount * 2);
            headerValues = Arrays.copyOf(headerValues, headerCount * 2);
        }
        headerNames[headerCount] = name;
        headerValues[headerCount] = value;
        headerCount++;
    }

    /** The index of the first header field named {@code name} (any case), or -1. */
    public int headerIndex(String name) {
        for (int i = 0; i < headerCount; i++) {
            if (headerNames[i].equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    public byte[] bodyText() {
        return bodyString == null ? null : bodyString.getBytes(StandardCharsets.UTF_8);
    }
}
