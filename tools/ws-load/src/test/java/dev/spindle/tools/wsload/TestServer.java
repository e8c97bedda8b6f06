// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A small blocking server of the four benchmark routes, for the smoke test of broadcast and sse
 * before Spindle's benchmark app serves them. It makes the client's parsers work: messages fragmented
 * with a ping between the fragments, writes split at random points, SSE events with an id field,
 * CRLF line ends and comment heartbeats, each event cut into several chunks.
 * Usage: {@code TestServer [port]}; prints "TestServer listening on 127.0.0.1:PORT".
 */
public final class TestServer {
    private final Set<Member> wsMembers = ConcurrentHashMap.newKeySet();
    private final Set<Member> sseStreams = ConcurrentHashMap.newKeySet();
    private long eventId;

    /** One client's output, written under its own lock. */
    private static final class Member {
        final OutputStream out;

        Member(OutputStream out) {
            this.out = out;
        }

        synchronized void write(byte[] b) throws IOException {
            // Split writes so the client sees frames and events cut at arbitrary points.
            int at = 0;
            while (at < b.length) {
                int n = Math.min(b.length - at, 1 + ThreadLocalRandom.current().nextInt(Math.max(1, b.length)));
                out.write(b, at, n);
                out.flush();
                at += n;
            }
        }
    }

    public static void main(String[] args) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        TestServer server = new TestServer();
        try (ServerSocket ss = new ServerSocket(port, 1024, InetAddress.getLoopbackAddress())) {
            System.out.println("TestServer listening on 127.0.0.1:" + ss.getLocalPort());
            System.out.flush();
            Thread.ofPlatform().daemon().start(server::heartbeats);
            while (true) {
                Socket s = ss.accept();
                Thread.ofVirtual().start(() -> server.serve(s));
            }
        }
    }

    private void heartbeats() {
        while (true) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            for (Member m : sseStreams) {
                try {
                    m.write(chunk(": heartbeat\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
                } catch (IOException e) {
                    sseStreams.remove(m);
                }
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            s.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (true) {
                String requestLine = line(in);
                if (requestLine == null) {
                    return;
                }
                Map<String, String> headers = new HashMap<>();
                for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                    int c = h.indexOf(':');
                    headers.put(h.substring(0, c).trim().toLowerCase(Locale.ROOT), h.substring(c + 1).trim());
                }
                String[] parts = requestLine.split(" ");
                String route = parts[0] + " " + parts[1];
                switch (route) {
                    case "GET /ws/echo", "GET /ws/broadcast" -> {
                        webSocket(in, out, headers, route.endsWith("broadcast"));
                        return;
                    }
                    case "GET /sse/broadcast" -> {
                        sseStream(in, out);
                        return;
                    }
                    case "POST /sse/publish" -> {
                        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
                        byte[] body = in.readNBytes(length);
                        publish(body);
                        out.write("HTTP/1.1 204 No Content\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                    default -> {
                        out.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                }
            }
        } catch (IOException e) {
            // The client went away: nothing to clean but the sets, done by the callers.
        }
    }

    private void webSocket(InputStream in, OutputStream out, Map<String, String> headers, boolean broadcast) throws IOException {
        String accept = WsConn.acceptFor(headers.get("sec-websocket-key"));
        out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                + accept + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        Member me = new Member(out);
        if (broadcast) {
            wsMembers.add(me);
        }
        try {
            ByteArrayOutputStream message = new ByteArrayOutputStream();
            while (true) {
                int b0 = in.read();
                if (b0 < 0) {
                    return;
                }
                int b1 = in.read();
                long len = b1 & 0x7f;
                if (len == 126) {
                    len = (in.read() << 8) | in.read();
                } else if (len == 127) {
                    len = 0;
                    for (int i = 0; i < 8; i++) {
                        len = (len << 8) | in.read();
                    }
                }
                byte[] mask = in.readNBytes(4);
                byte[] payload = in.readNBytes((int) len);
                for (int i = 0; i < payload.length; i++) {
                    payload[i] ^= mask[i & 3];
                }
                int opcode = b0 & 0x0f;
                if (opcode == 8) {
                    me.write(frame(8, true, payload.length >= 2 ? new byte[] {payload[0], payload[1]} : new byte[0]));
                    return;
                }
                if (opcode == 9 || opcode == 10) {
                    continue;
                }
                message.write(payload);
                if ((b0 & 0x80) == 0) {
                    continue;
                }
                byte[] whole = message.toByteArray();
                message.reset();
                byte[] wire = fragmented(whole);
                if (broadcast) {
                    for (Member m : wsMembers) {
                        try {
                            m.write(wire);
                        } catch (IOException e) {
                            wsMembers.remove(m);
                        }
                    }
                } else {
                    me.write(wire);
                }
            }
        } finally {
            wsMembers.remove(me);
        }
    }

    /** Every third message in two fragments with a ping between them, else one frame. */
    private static byte[] fragmented(byte[] text) throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        if (text.length >= 2 && ThreadLocalRandom.current().nextInt(3) == 0) {
            int cut = 1 + ThreadLocalRandom.current().nextInt(text.length - 1);
            wire.write(frame(1, false, java.util.Arrays.copyOfRange(text, 0, cut)));
            wire.write(frame(9, true, "p".getBytes(StandardCharsets.US_ASCII)));
            wire.write(frame(0, true, java.util.Arrays.copyOfRange(text, cut, text.length)));
        } else {
            wire.write(frame(1, true, text));
        }
        return wire.toByteArray();
    }

    static byte[] frame(int opcode, boolean fin, byte[] payload) {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            f.write(payload.length);
        } else if (payload.length < 65536) {
            f.write(126);
            f.write(payload.length >>> 8);
            f.write(payload.length & 0xff);
        } else {
            f.write(127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                f.write((int) ((long) payload.length >>> shift) & 0xff);
            }
        }
        f.writeBytes(payload);
        return f.toByteArray();
    }

    private void sseStream(InputStream in, OutputStream out) throws IOException {
        out.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        Member me = new Member(out);
        sseStreams.add(me);
        try {
            while (in.read() >= 0) {
                // The client sends nothing more; reading finds its close.
            }
        } finally {
            sseStreams.remove(me);
        }
    }

    private void publish(byte[] body) {
        long id;
        synchronized (this) {
            id = ++eventId;
        }
        byte[] event = ("id: " + id + "\r\ndata: " + new String(body, StandardCharsets.UTF_8) + "\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        // The event in up to three chunks, cut at random points.
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        int at = 0;
        for (int pieces = 0; at < event.length; pieces++) {
            int n = pieces == 2 ? event.length - at : 1 + ThreadLocalRandom.current().nextInt(event.length - at);
            wire.writeBytes(chunk(java.util.Arrays.copyOfRange(event, at, at + n)));
            at += n;
        }
        byte[] bytes = wire.toByteArray();
        for (Member m : sseStreams) {
            try {
                m.write(bytes);
            } catch (IOException e) {
                sseStreams.remove(m);
            }
        }
    }

    private static byte[] chunk(byte[] data) {
        ByteArrayOutputStream c = new ByteArrayOutputStream();
        c.writeBytes((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        c.writeBytes(data);
        c.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return c.toByteArray();
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) {
                return sb.isEmpty() ? null : sb.toString();
            }
            if (c == '\n') {
                int n = sb.length();
                return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
            }
            sb.append((char) c);
        }
    }
}
