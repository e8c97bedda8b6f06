// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@link ClientConnection} as its pool hands it to the loop: every call goes to the connection,
 * and {@link #closed()} also tells the pool, which drops it. The loop knows it by this object. It
 * drives the connection's streamed bodies too: their readers wake it through the loop, and a body
 * read to its end frees it for the next request.
 */
final class PooledConnection implements OutboundConnection, ResponseStream.Driver {
    final ClientConnection core;
    private final DestinationPool pool;
    /** On the pool's idle stack (an entry may be stale: the connection is checked when taken). */
    boolean inIdle;

    PooledConnection(ClientConnection core, DestinationPool pool) {
        this.core = core;
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
        return core.connected();
    }

    @Override
    public Next connectFailed(IOException cause) {
        return core.connectFailed(cause);
    }

    @Override
    public Next received(ByteBuffer src) {
        return core.received(src);
    }

    @Override
    public Next endOfInput() {
        return core.endOfInput();
    }

    @Override
    public Next resume() {
        return core.resume();
    }

    @Override
    public Next next() {
        return core.next();
    }

    @Override
    public State state() {
        return core.state();
    }

    @Override
    public ByteBuffer outbound() {
        return core.outbound();
    }

    @Override
    public Next written(int bytes) {
        return core.written(bytes);
    }

    @Override
    public void closeAfterResponse() {
        core.closeAfterResponse();
    }

    @Override
    public void drain() {
        core.drain();
    }

    @Override
    public Next tick(long now) {
        return core.tick(now);
    }

    @Override
    public long nanosToTick(long now) {
        return core.nanosToTick(now);
    }

    /** Dropped from the pool first, so that requests the connection fails now go to others. */
    @Override
    public void closed() {
        pool.dropped(this);
        core.closed();
        pool.dispatchWaiting();
    }

    @Override
    public String toString() {
        return core.toString();
    }
}
