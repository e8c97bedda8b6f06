// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

/**
 * The keep-alive connection that POSTs {@code /sse/publish}: one request at a time, the next only after
 * the previous response (204 expected; any other status fails that message at once).
 */
final class SsePublisher extends Conn {
    private static final int MAX_RESPONSE_HEAD = 8192;

    private final Publishing publishing;
    private final byte[] requestHead;
    private final byte[] response = new byte[MAX_RESPONSE_HEAD];
    private int responseLength;
    private boolean waiting;
    private long waitingSeq;
    private long bodyRemaining;

    SsePublisher(Loop loop) {
        super(loop);
        this.publishing = new Publishing(loop);
        this.requestHead = ascii("POST /sse/publish HTTP/1.1\r\nHost: " + authority()
                + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + run.options.size() + "\r\n\r\n");
    }

    @Override
    boolean isPublisher() {
        return true;
    }

    @Override
    byte[] request() {
        return null;
    }

    @Override
    String checkHead(int code, Headers headers) {
        return null;
    }

    @Override
    void opened() {
        super.opened();
        run.tracker.publisherLoop(loop);
        loop.publisher = this;
    }

    @Override
    void pump(long now) {
        publishing.expire(now);
        if (status != OPEN || waiting || run.phase != Run.RUN || !publishing.canPublish()) {
            return;
        }
        long seq = publishing.next();
        int size = run.options.size();
        java.nio.ByteBuffer out = loop.writeBuffer(requestHead.length + size);
        out.put(requestHead);
        out.put(loop.payload, 0, size);
        byte[] a = out.array();
        Loop.digits(a, requestHead.length, seq);
        waiting = true;
        waitingSeq = seq;
        publishing.sent(seq, System.nanoTime());
        send(out.position());
    }

    @Override
    void endPublishing() {
        publishing.expireAll();
    }

    @Override
    boolean drained() {
        return run.tracker.unfinished.get() == 0 && !waiting;
    }

    @Override
    void onData(byte[] b, int from, int to) {
        int i = from;
        while (i < to && status == OPEN) {
            if (bodyRemaining > 0) {
                int n = (int) Math.min(bodyRemaining, to - i);
                i += n;
                bodyRemaining -= n;
                if (bodyRemaining == 0) {
                    responseDone();
                }
                continue;
            }
            int n = Math.min(to - i, response.length - responseLength);
            if (n == 0) {
                loop.error("publish_response_head_too_large");
                close();
                return;
            }
            int scanFrom = Math.max(0, responseLength - 3);
            System.arraycopy(b, i, response, responseLength, n);
            responseLength += n;
            int end = Headers.endOfHead(response, scanFrom, responseLength);
            if (end < 0) {
                i += n;
                continue;
            }
            i += n - (responseLength - end);
            responseLength = 0;
            onHead(Headers.parse(response, end));
        }
    }

    private void onHead(Headers headers) {
        if (!waiting) {
            loop.error("unexpected_publish_response");
            close();
            return;
        }
        if (headers == null) {
            loop.error("publish_bad_response");
            close();
            return;
        }
        if (headers.status() != 204) {
            loop.error("publish_status_" + headers.status());
            publishing.fail(waitingSeq);
        }
        if (headers.hasToken("transfer-encoding", "chunked")) {
            loop.error("publish_chunked_response");
            close();
            return;
        }
        String length = headers.get("content-length");
        bodyRemaining = 0;
        if (length != null && headers.status() != 204) {
            try {
                bodyRemaining = Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                loop.error("publish_bad_response");
                close();
                return;
            }
        }
        if (headers.hasToken("connection", "close")) {
            loop.error("publish_connection_close");
        }
        if (bodyRemaining == 0) {
            responseDone();
        }
    }

    private void responseDone() {
        waiting = false;
        pump(System.nanoTime());
    }

    @Override
    void onEof() {
        if (waiting) {
            publishing.fail(waitingSeq);
        }
        super.onEof();
    }
}
