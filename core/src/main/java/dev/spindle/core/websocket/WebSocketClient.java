// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.WebSocket;
import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.spi.OutboundLoop;
import dev.spindle.core.client.ClientTls;
import dev.spindle.core.client.SocketDriver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client side of RFC 6455: where the handshake goes ({@link Target}, from a {@code ws:} URI)
 * and the two ways a socket is driven, both through one sans-I/O {@link WebSocketClientConnection}
 * (the handshake, then the server's own engine, {@link WebSocketConnection}, in client mode: its
 * frames masked with a fresh key from a per-connection {@link SecureRandom}, the server's refused
 * when masked). On an event loop the loop opens the socket and drives it beside the ones it
 * serves, and the endpoint's callbacks run on the loop; anywhere else a blocking socket is driven
 * by two virtual threads ({@link SocketDriver}), one reading (running the callbacks), one writing
 * and keeping the engine's time. Either way no event loop ever blocks. A {@code wss:} socket has the
 * client's TLS ({@link ClientTls}) around the same connection, as its HTTP requests do.
 */
public final class WebSocketClient {
    /** What ALPN offers: the handshake is HTTP/1.1's (RFC 8441 over h2 is not spoken by the client). */
    private static final List<String> HTTP_1_1 = List.of("http/1.1");

    /**
     * What to ask for.
     *
     * @param uri a {@code ws:} (or {@code http:}) URI
     * @param headers extra request header fields, name then value
     * @param options the socket's limits and timeouts; its sub-protocols are offered in order, and
     *        permessage-deflate when it asks for compression
     * @param connectTimeout the most the connect and the handshake take; zero for no limit
     */
    public record Request(URI uri, List<String> headers, WebSocket.Options options, Duration connectTimeout) {
        /** Copies the headers. */
        public Request {
            headers = List.copyOf(headers);
        }
    }

    /**
     * Where a handshake goes, from its URI.
     *
     * @param host the host, an IPv6 literal without brackets
     * @param port the port, 80 when the URI names none
     * @param hostField the request's {@code Host} field
     * @param target the request target: path and query
     * @param secure whether it is spoken over TLS ({@code wss:})
     */
    record Target(String host, int port, String hostField, String target, boolean secure) {
        String authority() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }

        String describe() {
            return "WebSocket GET " + target;
        }
    }

    private WebSocketClient() {
    }

    /**
     * Where {@code uri} points, or why it cannot be asked.
     *
     * @param uri a {@code ws:}, {@code wss:}, {@code http:} or {@code https:} URI with a host
     * @return the target
     * @throws ClientException ({@link Reason#NOT_SENT}) for another scheme or no host
     */
    static Target target(URI uri) throws ClientException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean secure = scheme.equals("wss") || scheme.equals("https");
        String host = uri.getHost();
        int port = uri.getPort() < 0 ? (secure ? 443 : 80) : uri.getPort();
        String path = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        String authority = (host == null ? "?" : host) + ":" + port;
        String describe = "WebSocket GET " + path;
        if (!secure && !scheme.equals("ws") && !scheme.equals("http")) {
            throw new ClientException(Reason.NOT_SENT, authority, describe,
                    "not sent: only ws: and wss: are spoken, not " + (scheme.isEmpty() ? "a URI without scheme" : scheme + ":"), null);
        }
        if (host == null) {
            throw new ClientException(Reason.NOT_SENT, authority, describe, "not sent: the URI names no host", null);
        }
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        String hostField = (bare.indexOf(':') >= 0 ? "[" + bare + "]" : bare) + (uri.getPort() < 0 ? "" : ":" + port);
        return new Target(bare, port, hostField, path, secure);
    }

    /**
     * Opens a socket over a blocking connect on a virtual thread, driven by {@link SocketDriver}.
     *
     * @param request what to ask for
     * @param endpoint the socket's callbacks, run on the socket's reader thread
     * @return completes, on the reader thread, once a valid 101 arrived and {@link WebSocket.Endpoint#onOpen} ran;
     *         fails with a {@link ClientException} on a connect failure, a refusal or an invalid answer
     */
    public static CompletionStage<WebSocket> connect(Request request, WebSocket.Endpoint endpoint, ClientTls tls) {
        CompletableFuture<WebSocket> result = new CompletableFuture<>();
        Target target;
        try {
            target = target(request.uri());
        } catch (ClientException e) {
            return CompletableFuture.failedFuture(e);
        }
        Thread.ofVirtual().name("spindle-websocket-client").start(() -> {
            try {
                openBlocking(target, request, endpoint, tls, result);
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private static void openBlocking(Target target, Request request, WebSocket.Endpoint endpoint, ClientTls tls,
            CompletableFuture<WebSocket> result) {
        Socket socket = new Socket();
        SocketDriver driver = new SocketDriver(socket);
        OutboundConnection connection = wire(new WebSocketClientConnection(target, request, endpoint, result, driver::wake), target,
                request, tls);
        int timeout = (int) Math.min(Integer.MAX_VALUE, request.connectTimeout().toMillis());
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(target.host(), target.port()), timeout);
        } catch (SocketTimeoutException e) {
            closeQuietly(socket);
            result.completeExceptionally(new ClientException(Reason.CONNECT_TIMEOUT, target.authority(), target.describe(),
                    "not connected within " + timeout + " ms", e));
            return;
        } catch (IOException e) {
            closeQuietly(socket);
            connection.connectFailed(e);
            return;
        } catch (RuntimeException | Error e) {
            closeQuietly(socket);
            throw e;
        }
        driver.start(connection, connection::connected);
    }

    /**
     * Opens a socket on {@code loop}, which connects it and drives it beside the sockets it serves;
     * call on the loop's thread.
     *
     * @param request what to ask for
     * @param endpoint the socket's callbacks, run on the loop (unless it is a blocking endpoint)
     * @param loop the calling thread's loop
     * @param address the destination's address, known now or once looked up (off the loop)
     * @return completes on the loop's thread once a valid 101 arrived and {@link WebSocket.Endpoint#onOpen} ran,
     *         or fails with a {@link ClientException}
     */
    public static CompletionStage<WebSocket> connect(Request request, WebSocket.Endpoint endpoint, ClientTls tls, OutboundLoop loop,
            CompletionStage<InetSocketAddress> address) {
        CompletableFuture<WebSocket> result = new CompletableFuture<>();
        Target target;
        try {
            target = target(request.uri());
        } catch (ClientException e) {
            return CompletableFuture.failedFuture(e);
        }
        // the connect timeout counts from here, the lookup included; the loop knows the socket by what it drives
        AtomicReference<OutboundConnection> driven = new AtomicReference<>();
        OutboundConnection connection = wire(new WebSocketClientConnection(target, request, endpoint, result,
                () -> loop.resume(driven.get())), target, request, tls);
        driven.set(connection);
        CompletableFuture<InetSocketAddress> found = address.toCompletableFuture();
        if (found.isDone() && !found.isCompletedExceptionally()) {
            loop.connect(found.join(), connection);
            return result;
        }
        found.whenComplete((a, error) -> {
            try {
                loop.execute(() -> {
                    if (error != null) {
                        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause() : error;
                        result.completeExceptionally(new ClientException(Reason.CONNECT_FAILED, target.authority(), target.describe(),
                                "could not connect: cannot resolve " + target.host() + " (" + cause.getMessage() + ")", cause));
                    } else if (!result.isDone()) {
                        loop.connect(a, connection);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                result.completeExceptionally(new ClientException(Reason.NOT_SENT, target.authority(), target.describe(),
                        "not sent: the event loop has stopped", stopped));
            }
        });
        return result;
    }

    /** What a driver drives for {@code connection}: itself, or TLS around it for {@code wss:}. */
    private static OutboundConnection wire(WebSocketClientConnection connection, Target target, Request request, ClientTls tls) {
        return target.secure() ? tls.around(connection, target.host(), target.port(), HTTP_1_1, request.connectTimeout()) : connection;
    }

    /** {@return the handshake request (RFC 6455 4.1) for {@code target}, with the nonce {@code key}} */
    static String handshake(Target target, String key, Request request) {
        StringBuilder b = new StringBuilder(256).append("GET ").append(target.target()).append(" HTTP/1.1\r\n");
        b.append("Host: ").append(target.hostField()).append("\r\n");
        b.append("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ").append(key).append("\r\n");
        b.append("Sec-WebSocket-Version: ").append(WebSocketHandshake.VERSION).append("\r\n");
        if (!request.options().subprotocols().isEmpty()) {
            b.append("Sec-WebSocket-Protocol: ").append(String.join(", ", request.options().subprotocols())).append("\r\n");
        }
        if (request.options().compression()) {
            // every message is compressed by a fresh pooled deflater: no context is taken over
            b.append("Sec-WebSocket-Extensions: ").append(PerMessageDeflate.NAME).append("; client_no_context_takeover\r\n");
        }
        List<String> headers = request.headers();
        for (int i = 0; i + 1 < headers.size(); i += 2) {
            String name = headers.get(i);
            String value = headers.get(i + 1);
            if (!token(name) || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("not a header field: " + name);
            }
            b.append(name).append(": ").append(value).append("\r\n");
        }
        return b.append("\r\n").toString();
    }

    private static boolean token(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 0x7F || !Ascii.isTchar((byte) c)) {
                return false;
            }
        }
        return true;
    }

    /** Splits the head into its status line (returned) and its fields, by lower-case name. */
    static String parseHead(String head, Map<String, List<String>> fields) {
        String[] lines = head.split("\r\n");
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                fields.computeIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>(1))
                        .add(lines[i].substring(colon + 1).trim());
            }
        }
        return lines[0];
    }

    /** Why a handshake's answer is not a 101. */
    record Refusal(Reason reason, String detail) {
    }

    /** {@return why the status line is not a 101, or null when it is} */
    static Refusal checkStatus(String line) {
        String[] parts = line.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            return new Refusal(Reason.MALFORMED_RESPONSE, "not an HTTP/1.1 status line: " + line);
        }
        if (!parts[1].equals("101")) {
            return new Refusal(Reason.HANDSHAKE_FAILED, "the server refused the WebSocket handshake: status " + parts[1]
                    + (parts.length > 2 ? " " + parts[2] : ""));
        }
        return null;
    }

    /** {@return what is wrong with a 101's fields (RFC 6455 4.1, the client's checks), or null} */
    static String invalid(Map<String, List<String>> fields, String key, WebSocket.Options options) {
        if (!anyHasToken(fields.get("upgrade"), "websocket")) {
            return "no Upgrade: websocket";
        }
        if (!anyHasToken(fields.get("connection"), "upgrade")) {
            return "no Connection: Upgrade";
        }
        List<String> accept = fields.getOrDefault("sec-websocket-accept", List.of());
        String expected = WebSocketHandshake.accept(key);
        if (accept.size() != 1 || !accept.getFirst().equals(expected)) {
            return "Sec-WebSocket-Accept is " + (accept.isEmpty() ? "missing" : accept + ", not " + expected);
        }
        List<String> protocol = fields.getOrDefault("sec-websocket-protocol", List.of());
        if (protocol.size() > 1 || (protocol.size() == 1 && !options.subprotocols().contains(protocol.getFirst().trim()))) {
            return "the sub-protocol " + protocol + " was not offered (offered " + options.subprotocols() + ")";
        }
        List<String> extensions = fields.getOrDefault("sec-websocket-extensions", List.of());
        if (extensions.isEmpty()) {
            return null;
        }
        if (!options.compression() || extensions.size() > 1 || extensions.getFirst().indexOf(',') >= 0) {
            return "the extensions " + extensions + " were not offered";
        }
        String[] params = extensions.getFirst().split(";");
        if (!params[0].trim().equalsIgnoreCase(PerMessageDeflate.NAME)) {
            return "the extension " + params[0].trim() + " was not offered";
        }
        for (int i = 1; i < params.length; i++) {
            String p = params[i].trim().toLowerCase(Locale.ROOT);
            int eq = p.indexOf('=');
            String name = eq < 0 ? p : p.substring(0, eq).trim();
            // a server window under 15 bits is read by any inflater; the client's window stays 15 as offered
            if (!name.equals("server_no_context_takeover") && !name.equals("client_no_context_takeover")
                    && !name.equals("server_max_window_bits")) {
                return "permessage-deflate parameter " + name + " was not offered";
            }
        }
        return null;
    }

    static boolean hasParam(String extension, String name) {
        for (String p : extension.split(";")) {
            if (p.trim().equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyHasToken(List<String> fields, String token) {
        if (fields != null) {
            for (String field : fields) {
                if (Ascii.listHasToken(field, token)) {
                    return true;
                }
            }
        }
        return false;
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing more to do with it
        }
    }
}
