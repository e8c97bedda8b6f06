// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An HTTP proxy that opens tunnels (CONNECT, RFC 9110 9.3.6) to 127.0.0.1 ports, or refuses every
 * one with a 403; it keeps the targets it was asked for, in order.
 */
final class ConnectProxy implements AutoCloseable {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final ServerSocket listener = new ServerSocket(0, 50, LOOPBACK);
    private final Queue<String> targets = new ConcurrentLinkedQueue<>();
    private final Queue<Socket> sockets = new ConcurrentLinkedQueue<>();

    ConnectProxy(boolean refuses) throws IOException {
        Thread.ofVirtual().name("connect-proxy").start(() -> {
            try {
                while (true) {
                    Socket in = listener.accept();
                    sockets.add(in);
                    Thread.ofVirtual().start(() -> tunnel(in, refuses));
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
    }

    private void tunnel(Socket in, boolean refuses) {
        try {
            String head = RawSockets.readHead(in.getInputStream());
            String[] requestLine = head.substring(0, Math.max(0, head.indexOf("\r\n"))).split(" ");
            OutputStream to = in.getOutputStream();
            if (requestLine.length != 3 || !requestLine[0].equals("CONNECT")) {
                to.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                in.close();
                return;
            }
            targets.add(requestLine[1]);
            int port = Integer.parseInt(requestLine[1].substring(requestLine[1].lastIndexOf(':') + 1));
            if (refuses) {
                to.write("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                in.close();
                return;
            }
            Socket out = new Socket(LOOPBACK, port);
            sockets.add(out);
            to.write("HTTP/1.1 200 Connection Established\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            to.flush();
            RawSockets.pump(in, out);
            RawSockets.pump(out, in);
        } catch (IOException | RuntimeException e) {
            RawSockets.closeQuietly(in);
        }
    }

    int port() {
        return listener.getLocalPort();
    }

    /** {@return the CONNECT targets asked for, in order} */
    Queue<String> targets() {
        return targets;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(RawSockets::closeQuietly);
    }
}
