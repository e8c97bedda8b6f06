// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

/** One {@code GET /sse/broadcast} stream: a subscriber. */
final class SseStream extends Conn implements SseParser.Sink {
    private SseParser parser;

    SseStream(Loop loop) {
        super(loop);
    }

    @Override
    boolean isSubscriber() {
        return true;
    }

    @Override
    byte[] request() {
        return ascii("GET /sse/broadcast HTTP/1.1\r\nHost: " + authority() + "\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n");
    }

    @Override
    String checkHead(int code, Headers headers) {
        if (code != 200) {
            return "status_" + code;
        }
        String type = lower(headers.get("content-type"));
        if (type == null || !type.startsWith("text/event-stream")) {
            return "not_event_stream";
        }
        boolean chunked = headers.hasToken("transfer-encoding", "chunked");
        if (!chunked && headers.get("content-length") != null) {
            return "not_a_stream";
        }
        parser = new SseParser(this, Tracker.SEQ_WIDTH, chunked);
        return null;
    }

    @Override
    void onData(byte[] b, int from, int to) {
        parser.feed(b, from, to);
    }

    @Override
    public void onEvent(long length, long seq) {
        if (status == OPEN) {
            loop.delivered(length, seq, loop.readNanos);
        }
    }

    @Override
    public void onEnd() {
        if (status == OPEN) {
            loop.error("stream_ended_by_server");
        }
        close();
    }

    @Override
    public void onProtocolError(String kind) {
        loop.error("protocol_" + kind);
        close();
    }

    @Override
    void close() {
        if (parser != null) {
            parser.stop();
        }
        super.close();
    }
}
