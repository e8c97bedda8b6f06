// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link ClientConnection} driven on a blocking socket by the thread that makes the request
 * (a virtual thread of a blocking handler, a thread-per-connection server's thread, any other):
 * the same sans-I/O connection as on an event loop, with the caller's thread as its loop. Used by
 * one thread at a time; between requests it waits, idle, in its destination's pool. A streamed
 * request body's source, and a streamed response body's reader, wake the thread driving it when
 * it waits for them; a streamed response body is driven by a virtual thread of its own until it
 * ends, then the connection goes back to its pool.
 */
final class BlockingConnection implements ResponseStream.Driver {
    private static final int READ_BYTES = 16 * 1024;

    final ClientConnection core;
    /** What the socket's bytes and events go to: the connection, or TLS around it. */
    private final OutboundConnection wire;
    private final Socket socket;
    private InputStream in;
    private WritableByteChannel out;
    private byte[] readBuffer;
    private boolean closedReported;
    /** Where to connect, until the first exchange has. */
    private InetSocketAddress address;
    private int connectMillis;
    /** The thread driving the connection now, and whether something woke it since it last looked. */
    private volatile Thread driving;
    private volatile boolean woken;
    /** The streamed response body of the current exchange, once it arrived whole (ended for its reader once the connection is free). */
    private ResponseStream bodyEnded;

    private BlockingConnection(ClientConnection core, OutboundConnection wire) {
        this.core = core;
        this.wire = wire;
        this.socket = new Socket();
        core.driver(this);
    }

    /** A body's source gave more, or its reader made room or gave up (any thread): the driving thread resumes the connection. */
    @Override
    public void wakeup() {
        woken = true;
        LockSupport.unpark(driving);
    }

    @Override
    public void ended(ResponseStream body) {
        bodyEnded = body;
    }


    /**
     * After {@link #exchange} answered with a streamed response: drives the connection on a
     * virtual thread until the body ends, then runs {@code release} (the connection is reusable),
     * or closes it if the body failed or its reader gave up.
     */
    void streamBody(Runnable release) {
        if (bodyEnded != null) {
            release.run();
            bodyEnded.end();
            return;
        }
        Thread.ofVirtual().name("spindle-client-body-" + core.authority()).start(() -> {
            driving = Thread.currentThread();
            Next next = wire.next();
            try {
                while (bodyEnded == null && !core.isClosed()) {
                    next = step(next);
                }
            } catch (InterruptedException e) {
                close();
            }
            ResponseStream body = bodyEnded;
            if (body != null && !core.isClosed()) {
                release.run();
                body.end();
            } else {
                close();
                if (body != null) {
                    body.end();
                }
            }
        });
    }

    /**
     * A connection to {@code address}, connected by its first {@link #exchange}: a connect failure
     * then fails that request with the connection's reason.
     */
    static BlockingConnection open(Destination destination, InetSocketAddress address, ClientSettings settings, ClientTls tls) {
        ClientConnection core = new ClientConnection(destination.authority(), settings);
        BlockingConnection c = new BlockingConnection(core, destination.wire(core, tls, settings.connectTimeout()));
        c.address = address;
        c.connectMillis = (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis());
        return c;
    }

    /** Connects; the connection's connect timeout bounds the wait. */
    private void connect() {
        try {
            socket.setTcpNoDelay(true);
            socket.connect(address, connectMillis);
            in = socket.getInputStream();
            out = Channels.newChannel(socket.getOutputStream());
            readBuffer = new byte[READ_BYTES];
            wire.connected();
        } catch (SocketTimeoutException e) {
            // the connection's own clock decides it timed out; if it thinks not, the socket's failure stands
            wire.tick(System.nanoTime());
            if (!core.isClosed()) {
                wire.connectFailed(e);
            }
        } catch (IOException e) {
            wire.connectFailed(e);
        }
    }

    /**
     * Sends {@code request} and drives the connection until it is answered or failed.
     *
     * @return the response
     * @throws ClientException why there is none
     * @throws InterruptedException if the thread was interrupted meanwhile (the connection is closed)
     */
    ClientResponse exchange(ClientRequest request) throws ClientException, InterruptedException {
        driving = Thread.currentThread();
        bodyEnded = null;
        CompletableFuture<ClientResponse> answer = core.send(request);
        if (address != null) {
            // the request waits in the connection, so a failed connect fails it with its reason
            connect();
            address = null;
        }
        // a layer around the connection (TLS) takes the request's bytes when resumed
        Next next = wire.resume();
        while (!answer.isDone()) {
            if (Thread.interrupted()) {
                close();
                throw new InterruptedException("interrupted while calling " + core.authority());
            }
            next = step(next);
        }
        if (core.isClosed()) {
            close();
        }
        try {
            return answer.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof ClientException failure) {
                throw failure;
            }
            throw e;
        }
    }

    /** One thing: a resume when woken (which may end the body: the caller checks before doing more), a write, a wait, or a read. */
    private Next step(Next next) throws InterruptedException {
        if (woken) {
            woken = false;
            return wire.resume();
        }
        try {
            if (next == Next.CLOSE) {
                close();
                return Next.CLOSE;
            }
            if (next.writes()) {
                ByteBuffer bytes = wire.outbound();
                return wire.written(out.write(bytes));
            }
            if (!next.reads() || core.sendingBody()) {
                // waiting for a body's source or reader (a read now would block past their wakeup), or for a deadline
                long wait = wire.nanosToTick(System.nanoTime());
                if (!woken) {
                    LockSupport.parkNanos(this, Math.max(1, Math.min(wait, 1_000_000_000L)));
                }
                return woken ? wire.next() : wire.tick(System.nanoTime());
            }
            long wait = wire.nanosToTick(System.nanoTime());
            socket.setSoTimeout(wait == Long.MAX_VALUE ? 0 : (int) Math.min(Integer.MAX_VALUE, Math.max(1, (wait + 999_999) / 1_000_000)));
            int n;
            try {
                n = in.read(readBuffer);
            } catch (SocketTimeoutException e) {
                return wire.tick(System.nanoTime());
            }
            return n < 0 ? wire.endOfInput() : wire.received(ByteBuffer.wrap(readBuffer, 0, n));
        } catch (IOException e) {
            if (Thread.currentThread().isInterrupted()) {
                close();
                throw new InterruptedException("interrupted while calling " + core.authority());
            }
            // reset, broken pipe: the connection ends here, and says what that means for the request
            close();
            return Next.CLOSE;
        }
    }

    /**
     * Whether it may carry another request: idle, not past its idle timeout, and nothing arrived
     * while it idled but what TLS says between records (a TLS 1.3 session ticket): the bytes
     * that arrived are fed to the connection, which fails on any it did not ask for (they would
     * be read as the next request's answer), as the loops do as they arrive.
     */
    boolean reusable() {
        wire.tick(System.nanoTime());
        if (core.isIdle() && !socket.isClosed()) {
            feedArrived();
        }
        if (core.isIdle() && !core.isClosed() && !socket.isClosed()) {
            return true;
        }
        close();
        return false;
    }

    private void feedArrived() {
        try {
            for (int ready; in != null && (ready = in.available()) > 0 && !core.isClosed(); ) {
                int n = in.read(readBuffer, 0, Math.min(readBuffer.length, ready));
                if (n < 0) {
                    wire.endOfInput();
                    return;
                }
                wire.received(ByteBuffer.wrap(readBuffer, 0, n));
            }
        } catch (IOException e) {
            close();
        }
    }

    /** Closes the socket; the connection fails what it still has pending. */
    void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
        if (!closedReported) {
            closedReported = true;
            wire.closed();
        }
    }
}
