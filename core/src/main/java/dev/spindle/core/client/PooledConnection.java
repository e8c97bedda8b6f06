// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A client connection (HTTP/1.1, HTTP/2, or one TLS negotiates) as its pool hands it to the loop: every call goes to the connection
 * (through TLS for an {@code https:} destination),
 * and {@link #closed()} also tells the pool, which drops it. The loop knows it by this object. It
 * drives the connection's streamed bodies too: their readers wake it through the loop, and a body
 * read to its end frees it for the next request.
 */
final class PooledConnection implements OutboundConnection, ResponseStream.Driver {
    final PoolableConnection core;
    /** What the loop's calls go to: the connection, or TLS around it. */
    private final OutboundConnection wire;
    private final DestinationPool pool;
    /** On the pool's idle stack (an entry may be stale: the connection is checked when taken). */
    boolean inIdle;
    /** Opened to learn the destination's protocol (ALPN) and not told yet. */
    boolean probing;

    PooledConnection(PoolableConnection core, OutboundConnection wire, DestinationPool pool) {
        this.core = core;
        this.wire = wire;
        this.pool = pool;
        core.driver(this);
    }

    @Override
    public void wakeup() {
        pool.wake(this);
    }

    @Override
    public void ended(ResponseStream body) {
        pool.streamEnded(this);
        body.end();
    }


    @Override
    public Next connected() {
        return wire.connected();
    }

    @Override
    public Next connectFailed(IOException cause) {
        return wire.connectFailed(cause);
    }

    @Override
    public Next received(ByteBuffer src) {
        return wire.received(src);
    }

    @Override
    public Next endOfInput() {
        return wire.endOfInput();
    }

    @Override
    public Next resume() {
        return wire.resume();
    }

    @Override
    public Next next() {
        return wire.next();
    }

    @Override
    public State state() {
        return wire.state();
    }

    @Override
    public ByteBuffer outbound() {
        return wire.outbound();
    }

    @Override
    public Next written(int bytes) {
        return wire.written(bytes);
    }

    @Override
    public void closeAfterResponse() {
        wire.closeAfterResponse();
    }

    @Override
    public void drain() {
        wire.drain();
    }

    @Override
    public Next tick(long now) {
        return wire.tick(now);
    }

    @Override
    public long nanosToTick(long now) {
        return wire.nanosToTick(now);
    }

    /** Dropped from the pool first, so that requests the connection fails now go to others. */
    @Override
    public void closed() {
        pool.dropped(this);
        wire.closed();
        pool.dispatchWaiting();
    }

    @Override
    public String toString() {
        return wire.toString();
    }
}
