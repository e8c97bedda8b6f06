// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.websocket.WebSocketAccept;

/**
 * The handler of a WebSocket route: checks the opening handshake and, when it is one, leaves
 * what was agreed on the response, for the connection to answer 101 and switch protocols. It runs
 * inline, inside the router's filters, so a filter can refuse the handshake (401, 403) or add
 * header fields (a cookie) to the 101. A request that is not a handshake is refused: 426 with
 * {@code Upgrade: websocket} (and {@code Sec-WebSocket-Version} for a version this side does not
 * speak), or 400.
 */
final class WebSocketRoute implements Handler {
    private final WebSocket.Endpoint endpoint;
    private final WebSocket.Options options;

    WebSocketRoute(WebSocket.Endpoint endpoint, WebSocket.Options options) {
        this.endpoint = endpoint;
        this.options = options;
    }

    @Override
    public void handle(Request req, Response res) {
        WebSocketAccept accept = WebSocketAccept.negotiate(req, req.state, endpoint, options);
        if (accept.refusal != 0) {
            res.status(accept.refusal);
            if (accept.refusal == 426) {
                res.header("Upgrade", "websocket").header("Sec-WebSocket-Version", WebSocketAccept.version());
            }
            res.text(accept.refusal + " " + (accept.refusal == 426 ? "Upgrade Required" : "Bad Request") + ": " + accept.reason + "\n");
            return;
        }
        res.state.webSocket = accept;
    }
}
