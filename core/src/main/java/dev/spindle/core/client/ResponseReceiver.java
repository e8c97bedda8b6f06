// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Gathers the response being received for the first request in flight on a {@link ClientConnection}
 * and completes it: a buffered body is collected up to the limit, a streamed one goes to its reader
 * ({@link ResponseStream}) and its request completes at the head. On the connection's thread.
 */
abstract class ResponseReceiver implements ResponseParser.Listener {
    /** The first array of a body whose length is not announced (chunked, or up to the close). */
    private static final int BODY_INITIAL_BYTES = 1024;
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

    private int status;
    private String version;
    private byte[] head;
    private int reasonStart;
    private int reasonEnd;
    private int[] fields;
    private int fieldCount;
    private boolean reusable;
    private byte[] body;
    private int bodyLength;

    @Override
    public void head(ResponseParser p) {
        long announced = p.contentLength();
        ClientCall call = current();
        if (call.request.streamsResponse()) {
            long length = switch (p.framing()) {
                case NONE -> 0;
                case LENGTH -> announced;
                case CHUNKED, CLOSE -> -1;
            };
            call.stream = newStream(length);
            call.response = ClientApiAccess.get().streamedResponse(p.status(), version(p), Arrays.copyOf(p.buffer(), p.bufferLength()),
                    p.reasonStart(), p.reasonEnd(), Arrays.copyOf(p.fieldOffsets(), p.fieldCount() * 4), p.fieldCount(),
                    call.stream.body, maxBodySize());
            streamStarted(call);
            reusable = p.reusable();
            return;
        }
        if (p.framing() == ResponseParser.Framing.LENGTH && announced > maxBodySize()) {
            throw new ResponseException(Reason.BODY_TOO_LARGE, "the response announces a body of " + announced
                    + " bytes, more than the limit of " + maxBodySize());
        }
        status = p.status();
        version = version(p);
        head = Arrays.copyOf(p.buffer(), p.bufferLength());
        reasonStart = p.reasonStart();
        reasonEnd = p.reasonEnd();
        fieldCount = p.fieldCount();
        fields = Arrays.copyOf(p.fieldOffsets(), fieldCount * 4);
        reusable = p.reusable();
        bodyLength = 0;
        // a length known up front is allocated once; others as their first bytes arrive
        body = p.framing() == ResponseParser.Framing.LENGTH ? new byte[(int) announced] : null;
    }

    @Override
    public int body(ByteBuffer data) {
        ResponseStream stream = current().stream;
        if (stream != null) {
            return stream.offer(data, now());
        }
        int n = data.remaining();
        if ((long) bodyLength + n > maxBodySize()) {
            throw new ResponseException(Reason.BODY_TOO_LARGE, "the response body is larger than the limit of "
                    + maxBodySize() + " bytes");
        }
        if (body == null) {
            body = new byte[(int) Math.min(Math.max(n, BODY_INITIAL_BYTES), maxBodySize())];
        } else if (bodyLength + n > body.length) {
            long grown = Math.max((long) body.length * 2, (long) bodyLength + n);
            body = Arrays.copyOf(body, (int) Math.min(grown, Math.min(maxBodySize(), MAX_ARRAY)));
        }
        data.get(data.position(), body, bodyLength, n);
        bodyLength += n;
        return n;
    }

    @Override
    public void end(ResponseParser p) {
        if (current().stream != null) {
            boolean keep = reusable;
            clear();
            answered(null, keep);
            return;
        }
        int trailerCount = p.fieldCount();
        byte[] trailerBytes = trailerCount > 0 ? Arrays.copyOf(p.buffer(), p.bufferLength()) : null;
        int[] trailerFields = trailerCount > 0 ? Arrays.copyOf(p.fieldOffsets(), trailerCount * 4) : null;
        ClientResponse response = ClientApiAccess.get().response(status, version, head, reasonStart, reasonEnd, fields,
                fieldCount, body, bodyLength, trailerBytes, trailerFields, trailerCount);
        boolean keep = reusable;
        clear();
        answered(response, keep);
    }

    private static String version(ResponseParser p) {
        return p.http10() ? "HTTP/1.0" : "HTTP/1.1";
    }

    void clear() {
        head = null;
        fields = null;
        body = null;
        bodyLength = 0;
    }

    /** The most a buffered body may hold. */
    abstract long maxBodySize();

    /** The request the response being received answers: the first in flight. */
    abstract ClientCall current();

    /** A streamed response's head arrived: its request completes now. */
    abstract void streamStarted(ClientCall call);

    /** The response is complete (null for a streamed one, whose request completed at the head). */
    abstract void answered(ClientResponse response, boolean reusable);

    /** A stream for a body of {@code length} bytes (-1: unknown), driven as the connection is. */
    abstract ResponseStream newStream(long length);

    abstract long now();
}
