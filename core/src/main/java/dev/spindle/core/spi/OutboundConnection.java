package dev.spindle.core.spi;

import java.io.IOException;

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
     * request waiting on this connection fails, and the connection is over.
     *
     * @param cause why, as the socket reported it; kept as the cause of the requests' failures
     * @return {@link Next#CLOSE}: close the socket, then call {@link #closed()}
     */
    Next connectFailed(IOException cause);
}
