// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * One open WebSocket connection (RFC 6455), from a route added with
 * {@link Router.Builder#websocket(String, Endpoint, Options)}. Any thread may send on it, so a
 * publisher can keep the sockets of many clients in a set and send to each; what is sent waits in
 * a bounded queue until the connection writes it, and each send's stage completes once its frame
 * was written, so a producer that waits for it can never outrun a slow client. A client that reads
 * so slowly that the queue holds {@link Options#maxQueuedBytes()} is dropped (its endpoint told
 * 1008, the connection closed without a close frame, which would wait behind what it does not
 * read) rather than growing the server's memory.
 *
 * <p>The stages complete on the connection's thread: what is chained to them must not block it.
 *
 * <p>A client's socket ({@link Client#webSocket(String, Endpoint)}) is the same interface with the
 * same {@link Endpoint} callbacks, the roles swapped: its frames are masked, the server's close
 * code is what {@link Endpoint#onClose} hears, and it has no {@link #request()}.
 */
public interface WebSocket {
    /**
     * Queues a text message.
     *
     * @param text the message
     * @return a stage that completes once its frame was written, or exceptionally when the socket
     *         is closed (or closing) or the queue had no room for it
     */
    CompletionStage<Void> sendText(CharSequence text);

    /**
     * Queues a binary message: its bytes, from position to limit, are copied before this returns,
     * so the caller may reuse the buffer at once.
     *
     * @param data the message
     * @return as {@link #sendText}
     */
    CompletionStage<Void> sendBinary(ByteBuffer data);

    /**
     * Queues a ping; the client answers with a pong ({@link Endpoint#onPong}). The server sends
     * pings by itself on a quiet connection ({@link Options#pingInterval()}).
     *
     * @param payload at most 125 bytes, copied before this returns
     * @return as {@link #sendText}
     * @throws IllegalArgumentException if the payload is over 125 bytes
     */
    CompletionStage<Void> ping(ByteBuffer payload);

    /**
     * Starts the closing handshake once what is queued has been written: a close frame with
     * {@code code} and {@code reason}, then the client's answer is awaited for
     * {@link Options#closeTimeout()}. Nothing can be sent after it. Idempotent.
     *
     * @param code a close code a server may send (1000 normal, 1001 going away, 1008 policy, 1011
     *        internal error, 3000 to 4999 for applications)
     * @param reason a short reason; cut to the 123 bytes of UTF-8 a close frame holds
     * @return a stage that completes once the connection is over
     * @throws IllegalArgumentException for a code a close frame may not carry
     */
    CompletionStage<Void> close(int code, String reason);

    /** {@return whether messages can still be sent} False once either side began to close. */
    boolean isOpen();

    /** {@return the sub-protocol agreed on in the handshake ({@link Options#subprotocols()}), or null} */
    String subprotocol();

    /**
     * The handshake request, as the route saw it: its path parameters, query, headers and cookies,
     * valid for as long as the socket is.
     *
     * @return the request that opened this socket; null on a client's socket
     */
    Request request();

    /** {@return a stage completing when the connection has ended, whichever side ended it} */
    CompletionStage<Void> closed();

    /**
     * Sets what the application keeps for this socket (a user, a room), for its callbacks to find.
     *
     * @param value anything, or null
     */
    void attach(Object value);

    /** {@return what {@link #attach} set last, or null} */
    Object attachment();

    /**
     * Sends one text message to every socket of {@code sockets}, encoded once for all of them (and
     * compressed once for those that agreed on permessage-deflate) rather than once per socket: what
     * chat rooms and dashboards do. Each socket queues it as {@link #sendText} would, so a slow one
     * meets its own bound and never holds the others; sockets that are closed are skipped.
     *
     * @param sockets the sockets to send to; iterated once, on the caller's thread
     * @param text the message
     * @return a stage that completes, once every send has, with how many sockets the message was written to
     */
    static CompletionStage<Integer> broadcast(Iterable<? extends WebSocket> sockets, CharSequence text) {
        return dev.spindle.core.websocket.Broadcast.text(sockets, text);
    }

    /**
     * As {@link #broadcast(Iterable, CharSequence)} for a binary message, whose bytes (position to
     * limit) are copied once before this returns.
     *
     * @param sockets the sockets to send to
     * @param data the message
     * @return a stage that completes, once every send has, with how many sockets the message was written to
     */
    static CompletionStage<Integer> broadcast(Iterable<? extends WebSocket> sockets, ByteBuffer data) {
        return dev.spindle.core.websocket.Broadcast.binary(sockets, data);
    }

    /**
     * What an application does with the messages of its sockets. One instance serves every socket of
     * its route, so it must be thread-safe; each socket's callbacks run one at a time, in order, on
     * that connection's thread, so they must not block (wrap it in {@link #blocking} for callbacks that
     * do, or hand slow work to an executor and send its result from there). An exception thrown
     * by a callback goes to {@link #onError} and closes the socket with 1011.
     */
    interface Endpoint {
        /**
         * An endpoint whose callbacks may block (a database call, a downstream request, waiting for
         * a send's stage): they run one at a time and in order, as ever, but on a virtual thread of
         * the socket's own rather than on the connection's thread, as {@link Handler#blocking} does
         * for handlers. While the endpoint is behind by more than its socket's largest message (64 KiB
         * at least, 4 MiB at most), the server stops reading from the client.
         *
         * @param endpoint the endpoint, not null
         * @return an endpoint to pass to {@link Router.Builder#websocket(String, Endpoint, Options)}
         */
        static Endpoint blocking(Endpoint endpoint) {
            return new dev.spindle.core.websocket.BlockingEndpoint(java.util.Objects.requireNonNull(endpoint, "endpoint"));
        }

        /**
         * The handshake succeeded: the socket is open.
         *
         * @param socket the new socket
         * @throws Exception a failure: {@link #onError}, then the socket closes with 1011
         */
        default void onOpen(WebSocket socket) throws Exception {
        }

        /**
         * A whole text message arrived (its fragments joined, its UTF-8 checked).
         *
         * @param socket the socket
         * @param message the text
         * @throws Exception a failure: {@link #onError}, then the socket closes with 1011
         */
        default void onText(WebSocket socket, String message) throws Exception {
        }

        /**
         * A whole binary message arrived.
         *
         * @param socket the socket
         * @param message its bytes, from position to limit; valid during this call only (copy what you keep)
         * @throws Exception a failure: {@link #onError}, then the socket closes with 1011
         */
        default void onBinary(WebSocket socket, ByteBuffer message) throws Exception {
        }

        /**
         * A ping arrived; the pong that answers it is sent without the endpoint's help.
         *
         * @param socket the socket
         * @param payload its payload; valid during this call only
         * @throws Exception a failure: {@link #onError}, then the socket closes with 1011
         */
        default void onPing(WebSocket socket, ByteBuffer payload) throws Exception {
        }

        /**
         * A pong arrived (the answer to a ping, or a client's heartbeat).
         *
         * @param socket the socket
         * @param payload its payload; valid during this call only
         * @throws Exception a failure: {@link #onError}, then the socket closes with 1011
         */
        default void onPong(WebSocket socket, ByteBuffer payload) throws Exception {
        }

        /**
         * The socket closed, once per socket: {@code code} is the client's close code when it closed
         * (1005 when its close frame had none), the server's when the server closed it (1002
         * protocol error, 1007 invalid UTF-8, 1009 message too big, 1001 idle or shutting down,
         * 1008 a client too slow), or 1006 when the connection ended without a close frame.
         *
         * @param socket the socket
         * @param code the close code
         * @param reason the reason, possibly empty
         */
        default void onClose(WebSocket socket, int code, String reason) {
        }

        /**
         * A callback of this endpoint threw; the socket is closed with 1011 after this.
         *
         * @param socket the socket
         * @param error what was thrown
         */
        default void onError(WebSocket socket, Throwable error) {
        }
    }

    /**
     * A route's limits, timeouts and negotiation.
     *
     * @param maxMessageSize the largest message accepted, in bytes (inflated size with compression);
     *        a larger one closes the socket with 1009
     * @param maxQueuedBytes the most bytes of messages waiting to be written; a send that finds no
     *        room fails and closes the socket (1008), as a client too slow for its messages
     * @param idleTimeout a socket that receives nothing for this long is closed (1001); zero for never
     * @param pingInterval a ping is sent after this long without input, so that a client that went
     *        away is noticed and proxies keep the connection; zero for none
     * @param closeTimeout how long a socket that sent its close frame waits for the client's
     * @param subprotocols the sub-protocols the route speaks, most preferred first; the first one
     *        the client offers is agreed on, and none when it offers none of them
     * @param compression whether permessage-deflate (RFC 7692) is agreed on when the client offers it
     */
    record Options(long maxMessageSize, int maxQueuedBytes, Duration idleTimeout, Duration pingInterval,
            Duration closeTimeout, List<String> subprotocols, boolean compression) {
        /** Checks the values. */
        public Options {
            if (maxMessageSize < 1) {
                throw new IllegalArgumentException("maxMessageSize is at least 1, got " + maxMessageSize);
            }
            if (maxQueuedBytes < 1) {
                throw new IllegalArgumentException("maxQueuedBytes is at least 1, got " + maxQueuedBytes);
            }
            for (Duration d : new Duration[] {idleTimeout, pingInterval, closeTimeout}) {
                if (Objects.requireNonNull(d, "duration").isNegative()) {
                    throw new IllegalArgumentException("durations are not negative: " + d);
                }
            }
            subprotocols = List.copyOf(subprotocols);
        }

        /**
         * {@return 1 MiB messages, 4 MiB queued, a 5-minute idle timeout, a ping after 30 s of quiet,
         * 5 s for the closing handshake, no sub-protocol, no compression}
         */
        public static Options defaults() {
            return new Options(1 << 20, 4 << 20, Duration.ofMinutes(5), Duration.ofSeconds(30), Duration.ofSeconds(5),
                    List.of(), false);
        }

        /**
         * The largest message accepted.
         *
         * @param bytes the largest message accepted
         * @return these options with it
         */
        public Options maxMessageSize(long bytes) {
            return new Options(bytes, maxQueuedBytes, idleTimeout, pingInterval, closeTimeout, subprotocols, compression);
        }

        /**
         * The most bytes of messages waiting to be written.
         *
         * @param bytes the most bytes waiting to be written
         * @return these options with it
         */
        public Options maxQueuedBytes(int bytes) {
            return new Options(maxMessageSize, bytes, idleTimeout, pingInterval, closeTimeout, subprotocols, compression);
        }

        /**
         * How long a socket that receives nothing stays open.
         *
         * @param timeout how long a silent socket stays open; zero for ever
         * @return these options with it
         */
        public Options idleTimeout(Duration timeout) {
            return new Options(maxMessageSize, maxQueuedBytes, timeout, pingInterval, closeTimeout, subprotocols, compression);
        }

        /**
         * How long a quiet socket waits before a ping.
         *
         * @param interval how long without input before a ping; zero for no pings
         * @return these options with it
         */
        public Options pingInterval(Duration interval) {
            return new Options(maxMessageSize, maxQueuedBytes, idleTimeout, interval, closeTimeout, subprotocols, compression);
        }

        /**
         * How long a socket that sent its close frame waits for the client's.
         *
         * @param timeout how long to wait for the client's close frame
         * @return these options with it
         */
        public Options closeTimeout(Duration timeout) {
            return new Options(maxMessageSize, maxQueuedBytes, idleTimeout, pingInterval, timeout, subprotocols, compression);
        }

        /**
         * The sub-protocols the route speaks.
         *
         * @param names the sub-protocols spoken, most preferred first
         * @return these options with them
         */
        public Options subprotocols(String... names) {
            return new Options(maxMessageSize, maxQueuedBytes, idleTimeout, pingInterval, closeTimeout, List.of(names), compression);
        }

        /**
         * Whether permessage-deflate is agreed on.
         *
         * @param on whether to agree on permessage-deflate when offered
         * @return these options with it
         */
        public Options compression(boolean on) {
            return new Options(maxMessageSize, maxQueuedBytes, idleTimeout, pingInterval, closeTimeout, subprotocols, on);
        }
    }
}
