// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A client connection whose protocol TLS negotiates (ALPN offering {@code h2} and
 * {@code http/1.1}): until the handshake is done it holds the requests sent to it; then it becomes
 * an {@link Http2ClientConnection} if the server chose {@code h2}, else a {@link ClientConnection},
 * hands it those requests and passes every call on. A connection that ends before it knows (the
 * connect or the handshake failed) ends as an HTTP/1.1 one would.
 */
final class NegotiatedConnection implements OutboundConnection, PoolableConnection {
    private static final String H2 = "h2";

    private final String authority;
    private final ClientSettings settings;
    /** Told which protocol the server chose, once its handshake said (not for a connection that failed first): true for HTTP/2. */
    private final Consumer<Boolean> learned;
    private final int capacityWhileNegotiating;
    private final List<ClientRequest> requests = new ArrayList<>();
    private final List<BiConsumer<ClientResponse, Throwable>> outcomes = new ArrayList<>();
    private ResponseStream.Driver driver = ResponseStream.NO_DRIVER;
    private boolean closeAfterResponse;
    private OutboundConnection chosen;
    private PoolableConnection pooled;

    /**
     * @param expectHttp2 whether the destination chose {@code h2} before: then the connection takes
     *        as many requests during its handshake as an HTTP/2 one would, rather than one (which
     *        would send each further request to yet another new connection)
     */
    NegotiatedConnection(String authority, ClientSettings settings, boolean expectHttp2, Consumer<Boolean> learned) {
        this.authority = authority;
        this.settings = settings;
        this.capacityWhileNegotiating = expectHttp2 ? Http2ClientConnection.DEFAULT_MAX_STREAMS : 1;
        this.learned = learned;
    }

    /** {@return whether the protocol is known} */
    boolean decided() {
        return chosen != null;
    }

    @Override
    public void negotiated(String protocol) {
        if (chosen == null) {
            become(H2.equals(protocol));
            learned.accept(H2.equals(protocol));
        }
    }

    private void become(boolean http2) {
        if (http2) {
            Http2ClientConnection c = new Http2ClientConnection(authority, true, settings, System::nanoTime);
            chosen = c;
            pooled = c;
        } else {
            ClientConnection c = new ClientConnection(authority, settings);
            chosen = c;
            pooled = c;
        }
        pooled.driver(driver);
        for (int i = 0; i < requests.size(); i++) {
            pooled.send(requests.get(i), outcomes.get(i));
        }
        requests.clear();
        outcomes.clear();
        if (closeAfterResponse) {
            pooled.closeAfterResponse();
        }
    }

    /** The connection chosen; HTTP/1.1 if a call comes before the handshake said (it failed). */
    private OutboundConnection chosen() {
        if (chosen == null) {
            become(false);
        }
        return chosen;
    }

    @Override
    public void send(ClientRequest request, BiConsumer<ClientResponse, Throwable> outcome) {
        if (pooled != null) {
            pooled.send(request, outcome);
        } else {
            requests.add(request);
            outcomes.add(outcome);
        }
    }

    @Override
    public boolean isIdle() {
        return pooled != null && pooled.isIdle();
    }

    @Override
    public boolean isReusable() {
        return pooled != null ? pooled.isReusable() : !closeAfterResponse;
    }

    @Override
    public int pending() {
        return pooled != null ? pooled.pending() : requests.size();
    }

    /** {@return the chosen connection's; while the handshake runs, an HTTP/2 connection's if the destination spoke it before, else 1} */
    @Override
    public int capacity() {
        return pooled != null ? pooled.capacity() : capacityWhileNegotiating;
    }

    @Override
    public void closeAfterResponse() {
        if (pooled != null) {
            pooled.closeAfterResponse();
        } else {
            closeAfterResponse = true;
        }
    }

    @Override
    public void driver(ResponseStream.Driver driver) {
        this.driver = driver;
        if (pooled != null) {
            pooled.driver(driver);
        }
    }

    @Override
    public Next connected() {
        return chosen().connected();
    }

    @Override
    public Next connectFailed(IOException cause) {
        return chosen().connectFailed(cause);
    }

    @Override
    public Next received(ByteBuffer src) {
        return chosen().received(src);
    }

    @Override
    public Next endOfInput() {
        return chosen().endOfInput();
    }

    @Override
    public Next resume() {
        return chosen == null ? Next.WAIT : chosen.resume();
    }

    @Override
    public Next next() {
        return chosen == null ? Next.WAIT : chosen.next();
    }

    @Override
    public State state() {
        return chosen == null ? State.IDLE : chosen.state();
    }

    @Override
    public ByteBuffer outbound() {
        return chosen().outbound();
    }

    @Override
    public Next written(int bytes) {
        return chosen().written(bytes);
    }

    @Override
    public void drain() {
        if (chosen == null) {
            closeAfterResponse = true;
        } else {
            chosen.drain();
        }
    }

    @Override
    public Next tick(long now) {
        // the TLS layer around bounds the connect and the handshake
        return chosen == null ? Next.WAIT : chosen.tick(now);
    }

    @Override
    public long nanosToTick(long now) {
        return chosen == null ? Long.MAX_VALUE : chosen.nanosToTick(now);
    }

    @Override
    public void closed() {
        chosen().closed();
    }

    @Override
    public String toString() {
        return chosen == null ? "NegotiatedConnection[" + authority + ", " + requests.size() + " waiting]" : chosen.toString();
    }
}
