package dev.spindle.core;

import dev.spindle.core.client.ClientApiAccess;

/** The client engine's way to what this package keeps package-private; see {@link ClientApiAccess}. */
final class ClientEngineAccess extends ClientApiAccess {
    @Override
    public ClientResponse response(int status, boolean http10, byte[] head, int reasonStart, int reasonEnd, int[] fields,
            int fieldCount, byte[] body, int bodyLength, byte[] trailerBytes, int[] trailerFields, int trailerCount) {
        return new ClientResponse(status, http10, head, reasonStart, reasonEnd, fields, fieldCount, body, bodyLength,
                trailerBytes, trailerFields, trailerCount);
    }

    @Override
    public ClientResponse streamedResponse(int status, boolean http10, byte[] head, int reasonStart, int reasonEnd,
            int[] fields, int fieldCount, RequestBody body, long collectLimit) {
        body.collectLimit = collectLimit;
        return new ClientResponse(status, http10, head, reasonStart, reasonEnd, fields, fieldCount, body);
    }
}
