// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/** Forwards each connection to a port, counting the connections it accepts. */
final class CountingProxy implements AutoCloseable {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final ServerSocket listener = new ServerSocket(0, 50, LOOPBACK);
    private final AtomicInteger accepted = new AtomicInteger();
    private final Queue<Socket> sockets = new ConcurrentLinkedQueue<>();

    CountingProxy(int target) throws IOException {
        Thread.ofPlatform().daemon().name("counting-proxy").start(() -> {
            try {
                while (true) {
                    Socket in = listener.accept();
                    accepted.incrementAndGet();
                    Socket out = new Socket(LOOPBACK, target);
                    // no Nagle: an HTTP/2 peer's small frames (WINDOW_UPDATE) must not wait for an ACK
                    in.setTcpNoDelay(true);
                    out.setTcpNoDelay(true);
                    sockets.add(in);
                    sockets.add(out);
                    RawSockets.pump(in, out);
                    RawSockets.pump(out, in);
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
    }

    int port() {
        return listener.getLocalPort();
    }

    AtomicInteger accepted() {
        return accepted;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(RawSockets::closeQuietly);
    }
}
