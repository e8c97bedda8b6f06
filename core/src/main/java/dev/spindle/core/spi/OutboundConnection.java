// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * A {@link Connection} on a socket the strategy opened itself, to another server (the client
 * side): the strategy connects the socket (NIO {@code OP_CONNECT}, io_uring's connect operation,
 * a blocking {@code connect}), says how that went, and from then on drives it exactly like an
 * accepted connection: {@link #received}, {@link #endOfInput()}, {@link #outbound()},
 * {@link #written}, {@link #tick}, {@link #closed()}, acting on each {@link Next}. It knows no
 * HTTP: the connection encodes the requests and parses the responses.
 *
 * <p>Until the socket is connected the connection only ticks: {@link #next()} answers
 * {@link Next#WAIT} and it hands out nothing to write; its connect timeout is its own, so
 * {@link #tick} may answer {@link Next#CLOSE} before either call below. Exactly one of them follows
 * a connect attempt, on the connection's thread.
 *
 * <p>What only a served connection does has defaults here: an outbound connection sends no files
 * and has no handler reading its input, and reads native memory as a buffer over it.
 */
public interface OutboundConnection extends Connection {
    /**
     * The socket is connected: the connection starts writing what it holds (requests made while
     * connecting) and reading.
     *
     * @return what to do next
     */
    Next connected();

    /**
     * The socket could not be connected (refused, unreachable, timed out by the kernel): every
     * request waiting on this connection fails, and the connection is over. A layer the core puts
     * around a connection (TLS, a proxy's tunnel) calls it too, on the connection inside, when its
     * own opening fails or, for TLS, when it fails later: the connection's requests then fail with
     * the reason the layer's exception carries. Strategies call it only before {@link #connected()}.
     *
     * @param cause why, as the socket reported it; kept as the cause of the requests' failures
     * @return {@link Next#CLOSE}: close the socket, then call {@link #closed()}
     */
    Next connectFailed(IOException cause);

    /**
     * The application protocol a layer around this connection negotiated (TLS's ALPN), told just
     * before {@link #connected()}: a connection that offered more than one becomes the one the
     * server chose. Strategies never call it; by default it is ignored.
     *
     * @param protocol the ALPN protocol id the server chose, such as {@code h2}; null if none was
     */
    default void negotiated(String protocol) {
    }

    /**
     * Bytes read into native memory, as a buffer over them (a copy-free view).
     *
     * @param memory the memory the bytes are in
     * @param offset where they start
     * @param length how many; 0 does nothing
     * @return what to do next
     */
    @Override
    default Next received(MemorySegment memory, long offset, int length) {
        return length == 0 ? next() : received(memory.asSlice(offset, length).asByteBuffer());
    }

    /**
     * Always null: an outbound connection writes only from {@link #outbound()}.
     *
     * @return null
     */
    @Override
    default FileRegion outboundFile() {
        return null;
    }

    /** Nothing to transfer: an outbound connection sends no files. */
    @Override
    default void transferFiles(boolean on) {
    }
}
