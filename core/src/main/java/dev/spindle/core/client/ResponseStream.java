// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.RequestBody;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The body of a streamed response as its {@link ClientConnection} feeds it to the reader: the same
 * bounded window as a server's streamed request body ({@link RequestBody}), so once the reader
 * lags, the connection stops reading the socket until it catches up.
 */
final class ResponseStream {
    private static final ClientApiAccess API = ClientApiAccess.get();

    /** How a streamed body reaches whoever drives its connection: a loop's pool, or a blocking caller. */
    interface Driver {
        /** The reader took bytes, asked for more or gave up (any thread): the connection's {@code resume()} is due. */
        void wakeup();

        /**
         * The body arrived whole and the connection may carry the next request (the connection's
         * thread): free it for one, then {@link ResponseStream#end()} the body, so that a reader who
         * sees the end and calls again finds the connection free.
         *
         * @param body the body that arrived
         */
        void ended(ResponseStream body);
    }

    /** A connection driven by a loop: its reader is woken through the loop, and nobody else reads. */
    static final Driver NO_DRIVER = new Driver() {
        @Override
        public void wakeup() {
        }

        @Override
        public void ended(ResponseStream body) {
            body.end();
        }
    };

    final RequestBody body;
    /** When bytes last went to the reader, or the reader last made room: the response timeout runs from there. */
    long lastProgress;

    ResponseStream(long length, Driver driver, long now) {
        this.body = API.newBody(length, driver::wakeup);
        this.lastProgress = now;
    }

    /** Hands body bytes to the reader; returns how many it took (fewer once its window is full). */
    int offer(ByteBuffer data, long now) {
        int n = data.remaining();
        int taken = data.hasArray()
                ? API.offer(body, null, data.array(), data.arrayOffset() + data.position(), n)
                : API.offer(body, MemorySegment.ofBuffer(data), null, 0, n);
        if (taken > 0) {
            lastProgress = now;
        }
        return taken;
    }

    /** Whether the reader has room for more (false while its window is full or it has no demand). */
    boolean hasRoom() {
        return API.hasRoom(body);
    }

    /** Whether the reader gave up on the rest (closed the stream, cancelled). */
    boolean abandoned() {
        return API.abandoned(body);
    }

    void end() {
        API.end(body);
    }

    void fail(ClientException cause) {
        API.fail(body, new IOException(cause.getMessage(), cause));
    }
}
