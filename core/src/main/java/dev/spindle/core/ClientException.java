// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.IOException;
import java.util.Objects;

/**
 * A request made with Spindle's HTTP client that got no usable response: the connection could not
 * be opened, the response did not come in time, it was malformed or too large, or the connection
 * ended first. {@link #reason()} says which, as a value to act on (a pool retries a request that
 * was {@linkplain Reason#NOT_SENT never sent}); the message says it in words, naming the request
 * and the destination, such as
 * {@code GET /delay/100 to 127.0.0.1:8081: no response within 30000 ms (response timeout)}.
 *
 * <p>No stack trace is recorded: the failure is found on the connection's event loop, far from
 * where the request was made, and a downstream that dies may fail thousands of requests at once.
 * The {@linkplain #getCause() cause}, when there is one (a refused connection), keeps its own.
 */
public class ClientException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, and so whether the server may have seen the request. */
    public enum Reason {
        /** The connection could not be opened (refused, unreachable, no such host); the request was not sent. */
        CONNECT_FAILED,
        /** The connection was not open within the connect timeout; the request was not sent. */
        CONNECT_TIMEOUT,
        /**
         * The request was sent but its response was not complete within the response timeout; the
         * server may have acted on it.
         */
        RESPONSE_TIMEOUT,
        /**
         * The call did not have its response within its total timeout
         * ({@link ClientConfig#totalTimeout}), counted from the call: waiting for a connection,
         * connecting, TLS, sending, redirects and retries included; for a streamed response, until
         * its head. What it held is let go of: it leaves a pool's queue, its HTTP/2 stream is reset,
         * its HTTP/1.1 connection is closed. If it was sent, the server may have acted on it.
         */
        TOTAL_TIMEOUT,
        /**
         * The response broke HTTP/1.1's rules (RFC 9112): a bad status line or header field,
         * ambiguous framing, a bad chunk. The connection is closed; the server may have acted on
         * the request.
         */
        MALFORMED_RESPONSE,
        /**
         * The connection ended after the request was sent and before its response was complete;
         * the server may have acted on it.
         */
        CONNECTION_CLOSED,
        /** The response body was larger than the client buffers; the connection is closed. */
        BODY_TOO_LARGE,
        /**
         * No byte of the request was sent: the connection failed or closed before its turn. It is
         * safe to send it again, on another connection.
         */
        NOT_SENT,
        /**
         * The request was sent, pipelined behind another one whose response failed, and the
         * connection ended before this one was answered; whether the server acted on it is
         * unknown, so only an idempotent request may be sent again.
         */
        NOT_ANSWERED,
        /**
         * Every connection the client may open to the destination (from the calling event loop)
         * was busy and as many requests as may wait for one were waiting already; the request was
         * not sent. See {@link ClientConfig#maxConnectionsPerDestination(int)} and
         * {@link ClientConfig#maxWaitingRequests(int)}.
         */
        POOL_FULL,
        /**
         * The server reset the request's HTTP/2 stream ({@code RST_STREAM} with the code named in
         * the message, other than {@code REFUSED_STREAM}, which is {@link #NOT_SENT}): the server
         * may have acted on the request. The connection goes on.
         */
        STREAM_RESET,
        /**
         * The request's streamed body could not be sent whole: its source failed, or gave more or
         * fewer bytes than the length announced. The connection is closed (its framing is lost);
         * the server may have acted on the part it got.
         */
        REQUEST_BODY_FAILED,
        /**
         * A WebSocket opening handshake failed: the server answered with another status than 101
         * (named in the message), or its 101 was not valid (a wrong {@code Sec-WebSocket-Accept},
         * a sub-protocol or extension that was not offered).
         */
        HANDSHAKE_FAILED,
        /**
         * The server's certificate chain is not trusted (not issued by a certificate the client's
         * trust store holds, expired, or not yet valid): nothing was sent. See
         * {@link ClientConfig#trustStore}.
         */
        CERTIFICATE_UNTRUSTED,
        /**
         * The server's certificate is trusted but names another host than the one the address
         * gave (RFC 9110 4.3.4, the rules of RFC 6125 as the JDK's {@code HttpsURLConnection}
         * applies them): nothing was sent. See {@link ClientConfig#hostnameVerification(boolean)}.
         */
        HOSTNAME_MISMATCH,
        /** The TLS handshake did not finish within the connect timeout: nothing was sent. */
        TLS_HANDSHAKE_TIMEOUT,
        /**
         * The TLS handshake failed otherwise (no protocol version or cipher suite in common, an
         * alert from the server such as a refused client certificate, a server that does not speak
         * TLS); the message says what the TLS engine reported. Nothing was sent.
         */
        TLS_FAILED
    }

    /** What went wrong. */
    private final Reason reason;
    /** Where the request went: host and port. */
    private final String destination;
    /** The request, as its method and target. */
    private final String request;

    /**
     * A failed request; the message is {@code <request> to <destination>: <detail>}.
     *
     * @param reason what went wrong, not null
     * @param destination where the request went, such as {@code 127.0.0.1:8081}, not null
     * @param request the request, such as {@code GET /delay/100}, not null
     * @param detail what happened, in words, such as {@code no response within 30000 ms (response timeout)}
     * @param cause the failure underneath, such as the connect error; may be null
     */
    public ClientException(Reason reason, String destination, String request, String detail, Throwable cause) {
        super(request + " to " + destination + ": " + detail, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.destination = Objects.requireNonNull(destination, "destination");
        this.request = Objects.requireNonNull(request, "request");
    }

    /**
     * What went wrong.
     *
     * @return the reason, never null
     */
    public Reason reason() {
        return reason;
    }

    /**
     * Where the request went.
     *
     * @return the destination's host and port, such as {@code 127.0.0.1:8081}
     */
    public String destination() {
        return destination;
    }

    /**
     * The request that failed.
     *
     * @return its method and target, such as {@code GET /delay/100}
     */
    public String request() {
        return request;
    }

    /**
     * Records no stack trace: see the class comment.
     *
     * @return this exception
     */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
