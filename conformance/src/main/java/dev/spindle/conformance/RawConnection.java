// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.ResponseReader;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import javax.net.SocketFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * A client socket that sends raw bytes and reads HTTP/1.1 responses, for framing tests; over TLS
 * when made with an {@link javax.net.ssl.SSLSocketFactory} (the handshake is done in the
 * constructor, so the bytes sent afterwards are exactly the HTTP ones).
 */
public final class RawConnection implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final ResponseReader responses;

    public RawConnection(int port) throws IOException {
        this(port, SocketFactory.getDefault());
    }

    public RawConnection(int port, SocketFactory sockets) throws IOException {
        this("127.0.0.1", port, sockets);
    }

    /** To {@code host:port}, a socket from {@code sockets} (a TLS one: handshake done). */
    public RawConnection(String host, int port, SocketFactory sockets) throws IOException {
        this(connected(host, port, sockets));
    }

    /** On a connected socket (a TLS one with parameters of its own, say); its handshake is done here if not yet. */
    public RawConnection(Socket connected) throws IOException {
        socket = connected;
        try {
            socket.setSoTimeout(15_000);
            socket.setTcpNoDelay(true);
            if (socket instanceof SSLSocket tls) {
                tls.startHandshake();
            }
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        in = new BufferedInputStream(socket.getInputStream(), 65536);
        out = socket.getOutputStream();
        responses = new ResponseReader(in);
    }

    private static Socket connected(String host, int port, SocketFactory sockets) throws IOException {
        Socket socket = sockets.createSocket();
        try {
            socket.connect(new InetSocketAddress(host, port), 5000);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
        return socket;
    }

    /** {@return the connection's buffered input, for a protocol read here byte by byte (WebSocket frames after a 101)} */
    public InputStream input() {
        return in;
    }

    public RawConnection send(String ascii) throws IOException {
        return send(ascii.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawConnection send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    public Socket socket() {
        return socket;
    }

    /** Reads one response ({@link ResponseReader}); {@code head} when it answers a HEAD request (no body follows). */
    public RawResponse read(boolean head) throws IOException {
        return responses.read(head);
    }

    public RawResponse read() throws IOException {
        return read(false);
    }

    /** True when the server closed the connection (end of stream or reset) within the read timeout. */
    public boolean closedByPeer() throws IOException {
        return closedByPeer(socket.getSoTimeout());
    }

    /** As {@link #closedByPeer()}, waiting at most {@code millis} for the close. */
    public boolean closedByPeer(int millis) throws IOException {
        int previous = socket.getSoTimeout();
        socket.setSoTimeout(millis);
        try {
            return awaitClose() != Close.NONE;
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(previous);
            }
        }
    }

    /**
     * True when the server closed the connection with an end of stream (a FIN) within the read
     * timeout; false for a reset, or when it stays open.
     */
    public boolean closedCleanly() throws IOException {
        return awaitClose() == Close.END_OF_STREAM;
    }

    private enum Close { END_OF_STREAM, RESET, NONE }

    /** Reads once: how the server ended the connection, or NONE when it stayed open until the timeout. */
    private Close awaitClose() throws IOException {
        try {
            return in.read() < 0 ? Close.END_OF_STREAM : Close.NONE;
        } catch (SocketTimeoutException e) {
            return Close.NONE;
        } catch (SocketException e) {
            return Close.RESET;
        } catch (SSLException e) {
            // an SSLSocket reports a reset as an SSLException caused by it; an alert is no plain close
            if (e.getCause() instanceof SocketException) {
                return Close.RESET;
            }
            throw e;
        }
    }

    /** True when nothing arrives within {@code millis} and the connection is still open. */
    public boolean staysOpen(int millis) throws IOException {
        int previous = socket.getSoTimeout();
        socket.setSoTimeout(millis);
        try {
            in.read();
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        } finally {
            socket.setSoTimeout(previous);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
