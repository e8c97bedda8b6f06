// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

/**
 * A protocol connection that a layer around it, such as TLS, feeds and drains: the layer stands
 * between the strategy and this connection, hands it the bytes it decoded through the usual
 * {@link Connection} calls and encodes what it answers. What a layer needs beyond those calls is
 * here: because the connection no longer sees the socket's bytes, the layer reports activity for
 * its timeouts; it learns whether output waits and when the connection has finished, so that it
 * can end its own side; and it says which application protocol was negotiated.
 *
 * <p>Every method is called on the connection's thread, like the rest of {@link Connection}.
 */
public interface LayeredConnection extends Connection {
    /**
     * Bytes arrived from the peer, before the layer decoded them (a handshake, a partial record):
     * the connection's read timeouts count them as input, though it may receive no byte from them.
     */
    void inputActivity();

    /**
     * The socket took bytes the layer handed out: the connection's write timeout counts them as
     * output taken, though they may not be this connection's own bytes.
     */
    void outputActivity();

    /**
     * The peer spoke plain HTTP where the layer expected its own protocol (a plain request on a TLS
     * port): the connection answers {@code status} with {@code message} in plain HTTP/1.1 and a
     * close, without reading any request; the layer then passes the peer's bytes and the answer
     * through untouched. A connection already being refused keeps its refusal.
     *
     * @param status the HTTP status code to answer, such as 400
     * @param message the reason, in the plain-text body {@code <status> <reason phrase>: <message>}
     */
    void refuse(int status, String message);

    /**
     * The layer failed (a TLS error): no more input will reach the connection, and no request can be
     * read or answered; it still hands out what it has, then closes.
     */
    void inputFailed();

    /**
     * Whether the connection has bytes waiting for the layer to take from {@link #outbound()}.
     *
     * @return true if bytes (or a file region) wait to be written
     */
    boolean hasOutbound();

    /**
     * Whether the connection is closing and has handed out everything it will send, so that the layer
     * may end its own side (TLS sends {@code close_notify}).
     *
     * @return true once nothing more will come from {@link #outbound()}
     */
    boolean outputFinished();

    /**
     * Whether the connection gave up (a timeout, a failure): nothing more is sent, and the strategy
     * closes the socket without waiting for the layer's output.
     *
     * @return true once the connection aborted
     */
    boolean aborted();

    /**
     * Gives up on the connection, for the layer's own failures (a handshake not finished in time):
     * nothing more is sent, and the strategy closes it.
     */
    void abort();

    /**
     * The application protocol the layer negotiated: called once, when its handshake completed and
     * before the first byte of application data reaches {@link #received(java.nio.ByteBuffer)}. For
     * TLS it is what ALPN (RFC 7301) chose from the protocols the server offered, such as
     * {@code "h2"} or {@code "http/1.1"}. A connection that speaks one protocol only may ignore it.
     *
     * @param protocol the ALPN protocol identifier agreed on, or null when the peer offered none (it
     *        then speaks HTTP/1.1)
     */
    void applicationProtocol(String protocol);
}
