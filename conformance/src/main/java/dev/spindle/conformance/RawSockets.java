// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/** What the suites' raw servers and proxies do on plain sockets. */
final class RawSockets {
    private RawSockets() {
    }

    /**
     * Reads a head up to and including its blank line, byte by byte so that nothing after it is
     * taken from {@code in} (a tunnel's bytes, a request the server does not read).
     *
     * @return the head, or what came of it before the stream ended
     */
    static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        for (int matched = 0, b; matched < 4 && (b = in.read()) >= 0; ) {
            head.append((char) b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString();
    }

    /** Copies {@code from}'s bytes to {@code to} on a thread of its own, closing both once either side ends. */
    static void pump(Socket from, Socket to) {
        Thread.ofVirtual().start(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // one side went away
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
