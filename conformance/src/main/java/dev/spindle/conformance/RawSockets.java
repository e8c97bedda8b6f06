// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/** What the suites' raw servers and proxies do on sockets. */
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

    /** A server context with the key in {@code keyStore} (password {@link dev.spindle.core.testing.TestTls#PASSWORD}). */
    static SSLContext serverContext(Path keyStore) {
        char[] password = dev.spindle.core.testing.TestTls.PASSWORD.toCharArray();
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(KeyStore.getInstance(keyStore.toFile(), password), password);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a server SSLContext from " + keyStore + ": " + e, e);
        }
    }

    static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
