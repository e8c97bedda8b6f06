// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import java.util.ArrayDeque;

/**
 * The outcomes a client connection owes, handed on once the call into it that produced them is
 * done and the connection is consistent again (a future's dependent actions may send the next
 * request on it): responses and failures of requests, and streamed bodies that arrived whole,
 * whose driver frees the connection for the next request before the body ends. On the
 * connection's thread; for both {@link ClientConnection} and {@link Http2ClientConnection}.
 */
final class CallOutcomes {
    private final ArrayDeque<ClientCall> calls = new ArrayDeque<>();
    /** Streamed bodies that ended, each followed by whether the connection carries another request. */
    private final ArrayDeque<Object> ended = new ArrayDeque<>();
    private boolean settling;

    /** {@code call} has its response (or its failure) set. */
    void add(ClientCall call) {
        calls.add(call);
    }

    /** {@code call} fails: its streamed body's reader hears it if its head was delivered already, else its request. */
    void fail(ClientCall call, ClientException failure) {
        if (call.stream != null) {
            call.stream.fail(failure);
            return;
        }
        call.failure = failure;
        calls.add(call);
    }

    /** A streamed body arrived whole; {@code reusable}: the connection may carry the next request. */
    void streamEnded(ResponseStream body, boolean reusable) {
        ended.add(body);
        ended.add(reusable);
    }

    /**
     * Hands everything on: the requests' outcomes, then each ended body to {@code driver} (which
     * frees the connection) or, if the connection cannot carry another, straight to its end.
     *
     * @param open whether the connection is still open
     */
    void settle(ResponseStream.Driver driver, boolean open) {
        if (settling) {
            return;
        }
        settling = true;
        try {
            for (ClientCall call; (call = calls.poll()) != null; ) {
                call.settle();
            }
            for (Object body; (body = ended.poll()) != null; ) {
                boolean reusable = (Boolean) ended.poll();
                if (reusable && open) {
                    driver.ended((ResponseStream) body);
                } else {
                    ((ResponseStream) body).end();
                }
            }
        } finally {
            settling = false;
        }
    }

    /** {@return a duration's whole milliseconds, for messages} */
    static long millis(long nanos) {
        return nanos / 1_000_000;
    }

    /** {@return a parse failure's message as a request's failure says it} */
    static String detail(ResponseException e) {
        return e.reason() == ClientException.Reason.MALFORMED_RESPONSE ? "malformed response: " + e.getMessage() : e.getMessage();
    }
}
