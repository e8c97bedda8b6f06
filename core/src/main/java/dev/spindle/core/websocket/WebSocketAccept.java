// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import dev.spindle.core.Request;
import dev.spindle.core.WebSocket;
import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.exchange.RequestState;
import java.util.List;

/**
 * The outcome of a WebSocket opening handshake (RFC 6455 4.2.1, 4.2.2): either a refusal (the
 * status and reason to answer) or what was agreed, which the response carries to the connection
 * that switches protocols: the endpoint, its options, the {@code Sec-WebSocket-Accept} value, the
 * sub-protocol and permessage-deflate.
 */
public final class WebSocketAccept {
    /** The endpoint whose socket this opens. */
    public final WebSocket.Endpoint endpoint;
    /** The route's options. */
    public final WebSocket.Options options;
    /** The {@code Sec-WebSocket-Accept} value answering the client's key; null over HTTP/2, which has none. */
    public final String accept;
    /** The sub-protocol agreed on, or null. */
    public final String subprotocol;
    final PerMessageDeflate.Agreement deflate;
    /** A refusal's status (400, or 426 when the client must use another upgrade or version); 0 when accepted. */
    public final int refusal;
    /** A refusal's reason. */
    public final String reason;

    private WebSocketAccept(WebSocket.Endpoint endpoint, WebSocket.Options options, String accept, String subprotocol,
            PerMessageDeflate.Agreement deflate, int refusal, String reason) {
        this.endpoint = endpoint;
        this.options = options;
        this.accept = accept;
        this.subprotocol = subprotocol;
        this.deflate = deflate;
        this.refusal = refusal;
        this.reason = reason;
    }

    private static WebSocketAccept refused(int status, String reason) {
        return new WebSocketAccept(null, null, null, null, null, status, reason);
    }

    /**
     * Checks an HTTP/1.1 upgrade request, or an HTTP/2 extended CONNECT, and agrees on what it offers.
     *
     * @param request the request that reached a WebSocket route
     * @param state its state (the HTTP version)
     * @param endpoint the route's endpoint
     * @param options the route's options
     * @return the agreement, or a refusal
     */
    public static WebSocketAccept negotiate(Request request, RequestState state, WebSocket.Endpoint endpoint, WebSocket.Options options) {
        if (state.version == RequestState.HTTP_2) {
            return negotiateConnect(request, state, endpoint, options);
        }
        if (!anyHasToken(request.headers("upgrade"), "websocket")) {
            return refused(426, "this resource speaks WebSocket only (Upgrade: websocket)");
        }
        if (state.version != RequestState.HTTP_1_1) {
            return refused(400, "a WebSocket handshake is an HTTP/1.1 request");
        }
        if (!anyHasToken(request.headers("connection"), "upgrade")) {
            return refused(400, "a WebSocket handshake needs Connection: Upgrade");
        }
        if (!versionSpoken(request)) {
            return refused(426, "the WebSocket version spoken here is " + WebSocketHandshake.VERSION);
        }
        List<String> keys = request.headers("sec-websocket-key");
        if (keys.size() != 1 || !WebSocketHandshake.validKey(keys.getFirst().trim())) {
            return refused(400, "a WebSocket handshake needs one Sec-WebSocket-Key of 16 bytes in base64");
        }
        if (state.chunked || state.contentLength > 0) {
            return refused(400, "a WebSocket handshake has no body");
        }
        return agreed(request, endpoint, options, WebSocketHandshake.accept(keys.getFirst().trim()));
    }

    /**
     * Over HTTP/2 (RFC 8441 4, 5): an extended CONNECT with {@code :protocol websocket} and the
     * version field, without the key (the stream itself is the proof); answered 200.
     */
    private static WebSocketAccept negotiateConnect(Request request, RequestState state, WebSocket.Endpoint endpoint,
            WebSocket.Options options) {
        if (state.protocol == null) {
            return refused(426, "this resource speaks WebSocket only (over HTTP/2: an extended CONNECT, RFC 8441)");
        }
        if (!state.protocol.equals("websocket")) {
            return refused(400, "the protocol " + state.protocol + " is not spoken here, only websocket");
        }
        if (!versionSpoken(request)) {
            return refused(426, "the WebSocket version spoken here is " + WebSocketHandshake.VERSION);
        }
        if (state.contentLength > 0) {
            return refused(400, "a WebSocket handshake has no body");
        }
        return agreed(request, endpoint, options, null);
    }

    private static boolean versionSpoken(Request request) {
        List<String> versions = request.headers("sec-websocket-version");
        return versions.size() == 1 && versions.getFirst().trim().equals(WebSocketHandshake.VERSION);
    }

    private static WebSocketAccept agreed(Request request, WebSocket.Endpoint endpoint, WebSocket.Options options, String accept) {
        String subprotocol = null;
        List<String> offered = request.headers("sec-websocket-protocol");
        for (String name : options.subprotocols()) {
            if (anyHasToken(offered, name)) {
                subprotocol = name;
                break;
            }
        }
        PerMessageDeflate.Agreement deflate = options.compression()
                ? PerMessageDeflate.negotiate(request.headers("sec-websocket-extensions")) : null;
        return new WebSocketAccept(endpoint, options, accept, subprotocol, deflate, 0, null);
    }

    /** {@return the {@code Sec-WebSocket-Extensions} value of the answer, or null when no extension was agreed} */
    public String extensions() {
        return deflate == null ? null : deflate.response();
    }

    /** {@return the version this side speaks, for a refusal's {@code Sec-WebSocket-Version}} */
    public static String version() {
        return WebSocketHandshake.VERSION;
    }

    private static boolean anyHasToken(List<String> fields, String token) {
        for (String field : fields) {
            if (Ascii.listHasToken(field, token)) {
                return true;
            }
        }
        return false;
    }
}
