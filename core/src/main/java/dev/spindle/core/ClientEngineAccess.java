// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.client.ClientApiAccess;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/** The client engine's way to what this package keeps package-private; see {@link ClientApiAccess}. */
final class ClientEngineAccess extends ClientApiAccess {
    @Override
    public ClientResponse response(int status, String version, byte[] head, int reasonStart, int reasonEnd, int[] fields,
            int fieldCount, byte[] body, int bodyLength, byte[] trailerBytes, int[] trailerFields, int trailerCount) {
        return new ClientResponse(status, version, head, reasonStart, reasonEnd, fields, fieldCount, body, bodyLength,
                trailerBytes, trailerFields, trailerCount);
    }

    @Override
    public ClientResponse streamedResponse(int status, String version, byte[] head, int reasonStart, int reasonEnd,
            int[] fields, int fieldCount, RequestBody body, long collectLimit) {
        body.collectLimit = collectLimit;
        return new ClientResponse(status, version, head, reasonStart, reasonEnd, fields, fieldCount, body);
    }

    @Override
    public RequestBody newBody(long length, Runnable wakeup) {
        return new RequestBody(length, wakeup);
    }

    @Override
    public int offer(RequestBody body, MemorySegment src, byte[] array, long offset, int length) {
        return body.offer(src, array, offset, length);
    }

    @Override
    public boolean hasRoom(RequestBody body) {
        return body.hasRoom();
    }

    @Override
    public boolean abandoned(RequestBody body) {
        return body.abandoned();
    }

    @Override
    public void end(RequestBody body) {
        body.end();
    }

    @Override
    public void fail(RequestBody body, IOException cause) {
        body.fail(cause);
    }
}
