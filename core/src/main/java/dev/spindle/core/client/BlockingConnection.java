package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.exchange.BodySource;
import dev.spindle.core.spi.Next;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A {@link ClientConnection} driven on a blocking socket by the thread that makes the request
 * (a virtual thread of a blocking handler, a thread-per-connection server's thread, any other):
 * the same sans-I/O connection as on an event loop, with the caller's thread as its loop. Used by
 * one thread at a time; between requests it waits, idle, in its destination's pool. A streamed
 * response's body is read on the reader's thread too: each read that finds nothing pulls from the
 * socket ({@link #pull()}).
 */
final class BlockingConnection implements ResponseStream.Driver, BodySource {
    private static final int READ_BYTES = 16 * 1024;

    final ClientConnection core;
    private final Socket socket;
    private InputStream in;
    private WritableByteChannel out;
    private byte[] readBuffer;
    private boolean closedReported;
    /** Where to connect, until the first exchange has. */
    private InetSocketAddress address;
    private int connectMillis;
    /** Run once a streamed body was read to its end: the connection goes back to its pool. */
    private Runnable whenStreamEnds = () -> { };

    private BlockingConnection(ClientConnection core) {
        this.core = core;
        this.socket = new Socket();
        core.driver(this);
    }

    void whenStreamEnds(Runnable action) {
        this.whenStreamEnds = action;
    }

    /** The reader made room or gave up: kept input is fed, and a connection given up on is closed. */
    @Override
    public void wakeup() {
        core.resume();
        if (core.isClosed()) {
            close();
        }
    }

    @Override
    public void ended() {
        whenStreamEnds.run();
    }

    @Override
    public BodySource source() {
        return this;
    }

    /** The reader found no body bytes: feeds what was kept, else reads the socket once (or applies a timeout). */
    @Override
    public boolean pull() throws IOException {
        if (core.isClosed()) {
            return false;
        }
        Next next = core.resume();
        try {
            if (next.reads() || next.writes()) {
                step(next);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading the response from " + core.authority());
        }
        if (core.isClosed()) {
            close();
        }
        return true;
    }

    /**
     * A connection to {@code address}, connected by its first {@link #exchange}: a connect failure
     * then fails that request with the connection's reason.
     */
    static BlockingConnection open(Destination destination, InetSocketAddress address, ClientSettings settings) {
        BlockingConnection c = new BlockingConnection(new ClientConnection(destination.authority(), settings));
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
            core.connected();
        } catch (SocketTimeoutException e) {
            // the connection's own clock decides it timed out; if it thinks not, the socket's failure stands
            core.tick(System.nanoTime());
            if (!core.isClosed()) {
                core.connectFailed(e);
            }
        } catch (IOException e) {
            core.connectFailed(e);
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
        CompletableFuture<ClientResponse> answer = core.send(request);
        if (address != null) {
            // the request waits in the connection, so a failed connect fails it with its reason
            connect();
            address = null;
        }
        Next next = core.next();
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

    private Next step(Next next) throws InterruptedException {
        try {
            if (next == Next.CLOSE) {
                close();
                return Next.CLOSE;
            }
            if (next.writes()) {
                ByteBuffer bytes = core.outbound();
                return core.written(out.write(bytes));
            }
            if (next.reads()) {
                long wait = core.nanosToTick(System.nanoTime());
                socket.setSoTimeout(wait == Long.MAX_VALUE ? 0 : (int) Math.min(Integer.MAX_VALUE, Math.max(1, (wait + 999_999) / 1_000_000)));
                int n;
                try {
                    n = in.read(readBuffer);
                } catch (SocketTimeoutException e) {
                    return core.tick(System.nanoTime());
                }
                return n < 0 ? core.endOfInput() : core.received(ByteBuffer.wrap(readBuffer, 0, n));
            }
            return core.tick(System.nanoTime());
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
     * while it idled (bytes no request asked for would be read as the next request's answer; the
     * loops fail such a connection as they arrive).
     */
    boolean reusable() {
        core.tick(System.nanoTime());
        if (core.isIdle() && !socket.isClosed() && !unaskedBytes()) {
            return true;
        }
        close();
        return false;
    }

    private boolean unaskedBytes() {
        try {
            return in != null && in.available() > 0;
        } catch (IOException e) {
            return true;
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
            core.closed();
        }
    }
}
