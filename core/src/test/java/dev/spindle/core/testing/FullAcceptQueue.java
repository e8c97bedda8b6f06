// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a connect stay pending: a listening socket with a full accept queue drops further SYNs on
 * Linux, so a connect to it neither completes nor fails until the kernel gives up, minutes later.
 */
public final class FullAcceptQueue {
    private FullAcceptQueue() {
    }

    /**
     * Connects to {@code listening} (never accepting) until a connect times out: its queue is then full.
     *
     * @param listening a listening socket with a small backlog (1), which nothing accepts from
     * @return the connected sockets, which keep the queue full until they are closed
     * @throws IOException if a connect fails otherwise
     * @throws AssertionError if the queue never fills
     */
    public static List<Socket> fill(ServerSocket listening) throws IOException {
        List<Socket> queued = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            Socket s = new Socket();
            try {
                s.connect(listening.getLocalSocketAddress(), 300);
            } catch (SocketTimeoutException e) {
                s.close();
                return queued;
            }
            queued.add(s);
        }
        for (Socket s : queued) {
            s.close();
        }
        throw new AssertionError("the accept queue of a listening socket with backlog 1 never filled");
    }
}
