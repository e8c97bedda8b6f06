package dev.spindle.core.spi;

import java.io.IOException;

/**
 * A {@link Connection} on a socket the strategy opened itself ({@link OutboundLoop#connect}), such
 * as a client connection to another service. The strategy drives it exactly like an accepted one
 * once the socket is connected; before that it only {@link #tick ticks} it, so the connection owns
 * the connect timeout: when {@link #tick} answers {@link Next#CLOSE}, the strategy closes the
 * socket and calls {@link #closed()}.
 */
public interface OutboundConnection extends Connection {
    /**
     * The socket the strategy opened is connected: from now on the connection is read and written
     * like an accepted one, starting from what {@link #next()} answers after this call. Until then
     * it is only ticked, never read or written. Called once, on the connection's thread.
     */
    void connected();

    /**
     * The connect failed (refused, unreachable, or the loop stopped before it could connect). The
     * strategy then closes the socket and calls {@link #closed()}, as for any connection; neither
     * {@link #connected()} nor any read or write follows. Called at most once, on the connection's
     * thread, possibly within {@link OutboundLoop#connect} itself.
     *
     * @param cause why the connect failed, such as a {@link java.net.ConnectException}
     */
    void connectFailed(IOException cause);
}
