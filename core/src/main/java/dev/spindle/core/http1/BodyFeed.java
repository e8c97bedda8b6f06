// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.RequestBody;
import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.BodyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request body an HTTP/1.1 connection streams: what the parser decodes of it (lengths, chunks)
 * goes to its consumer as it arrives, and once the handler has answered without reading it all,
 * the rest is dropped up to the discard limit.
 */
final class BodyFeed {
    private static final ApiAccess API = ApiAccess.get();
    private static final Logger log = LoggerFactory.getLogger(BodyFeed.class);

    /** What one {@link #feed} did. */
    enum Fed {
        /** More is to come. */
        OPEN,
        /** The body arrived whole. */
        COMPLETE,
        /** Its framing broke (the consumer got the failure), or too much of an abandoned body arrived: read no further request. */
        BROKEN,
        /** The peer ended its input inside the body: it can never complete. */
        CUT
    }

    private final RequestParser parser;
    private final long discardLimit;
    private final BodyDecoder.BodySink sink = (data, array, offset, length) -> API.offer(body(), data, array, offset, length);
    /** The body being streamed, or null. */
    private RequestBody body;
    /** How much of it had arrived when it was abandoned. */
    private long discardFrom;

    BodyFeed(RequestParser parser, long discardLimit) {
        this.parser = parser;
        this.discardLimit = discardLimit;
    }

    /** The body being streamed (to a handler, or dropped once abandoned), or null. */
    RequestBody body() {
        return body;
    }

    boolean streaming() {
        return body != null;
    }

    void start(RequestBody streamed) {
        body = streamed;
    }

    /** The body ends with {@code status} (0: the connection went) for its consumer; nothing more is fed. */
    void fail(int status, String message) {
        RequestBody failed = body;
        if (failed != null) {
            body = null;
            API.fail(failed, new BodyException(status, message));
        }
    }

    /**
     * The handler answered without reading the whole body: the rest is dropped as it arrives,
     * unless it is more than the discard limit or the client still waits for {@code 100 Continue}.
     *
     * @return false when the connection must close instead (the body is then let go)
     */
    boolean dropRest(boolean continuePending) {
        long rest = body.length() >= 0 ? body.length() - API.received(body) : 0;
        if (rest > discardLimit || continuePending) {
            body = null;
            return false;
        }
        API.abandon(body);
        discardFrom = API.received(body);
        return true;
    }

    /** Moves what has arrived of the body to its consumer (or drops it once abandoned), while the consumer has room. */
    Fed feed(InputBuffer in, boolean inputEnded) {
        RequestBody fed = body;
        if (!API.hasRoom(fed)) {
            return Fed.OPEN;
        }
        int result;
        try {
            result = parser.streamBody(in, sink);
        } catch (HttpException e) {
            body = null;
            // the handler gets the failure (and its status is answered if it gives up); a body
            // already answered is just dropped: either way the framing is lost, so the connection ends
            log.debug("bad request body ({}): {}", e.status(), e.getMessage());
            API.fail(fed, new BodyException(e.status(), e.getMessage()));
            return Fed.BROKEN;
        }
        if (result == RequestParser.COMPLETE) {
            body = null;
            API.end(fed);
            return Fed.COMPLETE;
        }
        if (API.abandoned(fed) && API.received(fed) - discardFrom > discardLimit) {
            body = null;
            return Fed.BROKEN;
        }
        return inputEnded && API.hasRoom(fed) ? Fed.CUT : Fed.OPEN;
    }
}
