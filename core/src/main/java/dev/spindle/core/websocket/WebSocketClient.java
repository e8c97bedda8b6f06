// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import dev.spindle.core.bytes.Ascii;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The client side of RFC 6455 over a blocking socket: the opening handshake (4.1, checking the
 * 101's {@code Sec-WebSocket-Accept}, sub-protocol and extensions), then the server's own engine,
 * {@link WebSocketConnection}, in client mode (its frames masked with a fresh key from a
 * per-connection {@link SecureRandom}, the server's refused when masked) driven by two virtual
 * threads: one reads, one writes and keeps the engine's time. Blocking sockets on virtual threads
 * serve callers on an event loop and off it alike, and never block a loop.
 */
public final class WebSocketClient {
    private static final int MAX_HEAD = 16 * 1024;
    private static final ServerConfig ENGINE = ServerConfig.defaults();

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

    private WebSocketClient() {
    }

    /**
     * Opens a socket on a virtual thread.
     *
     * @param request what to ask for
     * @param endpoint the socket's callbacks
     * @return completes, on that virtual thread, once a valid 101 arrived and {@link WebSocket.Endpoint#onOpen} ran;
     *         fails with a {@link ClientException} on a connect failure, a refusal or an invalid answer
     */
    public static CompletionStage<WebSocket> connect(Request request, WebSocket.Endpoint endpoint) {
        CompletableFuture<WebSocket> result = new CompletableFuture<>();
        Thread.ofVirtual().name("spindle-websocket-client").start(() -> {
            try {
                open(request, endpoint, result);
            } catch (ClientException e) {
                result.completeExceptionally(e);
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private static void open(Request request, WebSocket.Endpoint endpoint, CompletableFuture<WebSocket> result) throws ClientException {
        URI uri = request.uri();
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost();
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        String authority = (host == null ? "?" : host) + ":" + port;
        String target = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        String describe = "WebSocket GET " + target;
        if (!scheme.equals("ws") && !scheme.equals("http")) {
            throw new ClientException(Reason.NOT_SENT, authority, describe,
                    "not sent: only ws: (plaintext) is spoken, not " + (scheme.isEmpty() ? "a URI without scheme" : scheme + ":"), null);
        }
        if (host == null) {
            throw new ClientException(Reason.NOT_SENT, authority, describe, "not sent: the URI names no host", null);
        }
        SecureRandom random = new SecureRandom();
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        String key = Base64.getEncoder().encodeToString(nonce);
        WebSocket.Options options = request.options();
        int timeout = (int) Math.min(Integer.MAX_VALUE, request.connectTimeout().toMillis());
        Socket socket = new Socket();
        try {
            try {
                socket.setTcpNoDelay(true);
                socket.connect(new InetSocketAddress(host, port), timeout);
            } catch (SocketTimeoutException e) {
                throw new ClientException(Reason.CONNECT_TIMEOUT, authority, describe, "not connected within " + timeout + " ms", e);
            } catch (IOException e) {
                throw new ClientException(Reason.CONNECT_FAILED, authority, describe, "could not connect: " + e, e);
            }
            byte[] rest;
            Map<String, List<String>> fields;
            try {
                socket.setSoTimeout(timeout);
                OutputStream out = socket.getOutputStream();
                out.write(handshake(uri, host, port, target, key, request).getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                InputStream in = socket.getInputStream();
                byte[] head = new byte[MAX_HEAD];
                int n = 0;
                int end = -1;
                while (end < 0) {
                    if (n == head.length) {
                        throw new ClientException(Reason.MALFORMED_RESPONSE, authority, describe,
                                "the handshake's answer has a head over " + MAX_HEAD + " bytes", null);
                    }
                    int r = in.read(head, n, head.length - n);
                    if (r < 0) {
                        throw new ClientException(Reason.CONNECTION_CLOSED, authority, describe,
                                "the server closed the connection before answering the handshake", null);
                    }
                    n += r;
                    end = headEnd(head, n);
                }
                rest = Arrays.copyOfRange(head, end, n);
                fields = new LinkedHashMap<>();
                String status = parseHead(new String(head, 0, end, StandardCharsets.ISO_8859_1), fields);
                checkStatus(status, authority, describe);
                socket.setSoTimeout(0);
            } catch (ClientException e) {
                throw e;
            } catch (SocketTimeoutException e) {
                throw new ClientException(Reason.RESPONSE_TIMEOUT, authority, describe, "no handshake answer within " + timeout + " ms", e);
            } catch (IOException e) {
                throw new ClientException(Reason.CONNECTION_CLOSED, authority, describe, "the handshake failed: " + e, e);
            }
            String invalid = invalid(fields, key, options);
            if (invalid != null) {
                throw new ClientException(Reason.HANDSHAKE_FAILED, authority, describe, "invalid handshake answer (101): " + invalid, null);
            }
            List<String> protocol = fields.getOrDefault("sec-websocket-protocol", List.of());
            List<String> extensions = fields.getOrDefault("sec-websocket-extensions", List.of());
            boolean deflate = !extensions.isEmpty();
            boolean inflateReset = deflate && hasParam(extensions.getFirst(), "server_no_context_takeover");
            SocketDriver driver = new SocketDriver(socket);
            WebSocketConnection engine = new WebSocketConnection(endpoint, options, protocol.isEmpty() ? null : protocol.getFirst().trim(),
                    deflate, inflateReset, null, ENGINE, driver::wake, new byte[0], random);
            driver.start(engine, () -> engine.open(rest));
            result.complete(engine.socket());
        } catch (ClientException | RuntimeException | Error e) {
            closeQuietly(socket);
            throw e;
        }
    }

    private static String handshake(URI uri, String host, int port, String target, String key, Request request) {
        StringBuilder b = new StringBuilder(256).append("GET ").append(target).append(" HTTP/1.1\r\n");
        String hostField = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        b.append("Host: ").append(hostField).append(uri.getPort() < 0 ? "" : ":" + port).append("\r\n");
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

    /** {@return the index after the head's blank line, or -1 when it has not arrived} */
    private static int headEnd(byte[] b, int n) {
        for (int i = 3; i < n; i++) {
            if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    /** Splits the head into its status line (returned) and its fields, by lower-case name. */
    private static String parseHead(String head, Map<String, List<String>> fields) {
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

    private static void checkStatus(String line, String authority, String describe) throws ClientException {
        String[] parts = line.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new ClientException(Reason.MALFORMED_RESPONSE, authority, describe, "not an HTTP/1.1 status line: " + line, null);
        }
        if (!parts[1].equals("101")) {
            throw new ClientException(Reason.HANDSHAKE_FAILED, authority, describe, "the server refused the WebSocket handshake: status "
                    + parts[1] + (parts.length > 2 ? " " + parts[2] : ""), null);
        }
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

    private static boolean hasParam(String extension, String name) {
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
