// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Checks of the parsers, the histogram and the tracker without a test framework: each byte stream is
 * fed whole, byte by byte, and in 500 random splits, and must give the same events every time.
 * Exit status 0 when every check passed; the failures are printed.
 */
public final class ParserCheck {
    private static int failures;
    private static int checks;

    private ParserCheck() {
    }

    public static void main(String[] args) {
        webSocketFrames();
        webSocketErrors();
        sseEvents();
        sseErrors();
        histogram();
        tracker();
        System.out.println("ParserCheck: " + checks + " checks, " + failures + " failed");
        System.exit(failures == 0 ? 0 : 1);
    }

    private static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            failures++;
            System.out.println("FAILED: " + what);
        }
    }

    /** Records the callbacks of both parsers as strings. */
    private static final class Recorder implements WsParser.Sink, SseParser.Sink {
        final List<String> events = new ArrayList<>();

        @Override
        public void onText(long length, long seq) {
            events.add("text " + length + " " + seq);
        }

        @Override
        public void onPing(byte[] payload, int length) {
            events.add("ping " + new String(payload, 0, length, StandardCharsets.US_ASCII));
        }

        @Override
        public void onClose(int code) {
            events.add("close " + code);
        }

        @Override
        public void onEvent(long length, long seq) {
            events.add("event " + length + " " + seq);
        }

        @Override
        public void onEnd() {
            events.add("end");
        }

        @Override
        public void onProtocolError(String kind) {
            events.add("error " + kind);
        }
    }

    private interface Feeder {
        List<String> parse(List<byte[]> pieces);
    }

    /** The events of {@code stream} fed in every way must all equal {@code expected}. */
    private static void splits(String name, byte[] stream, List<String> expected, Feeder feeder) {
        check(feeder.parse(List.of(stream)).equals(expected), name + " whole: " + feeder.parse(List.of(stream)) + " != " + expected);
        List<byte[]> bytes = new ArrayList<>();
        for (byte b : stream) {
            bytes.add(new byte[] {b});
        }
        check(feeder.parse(bytes).equals(expected), name + " byte by byte: " + feeder.parse(bytes));
        Random random = new Random(42);
        for (int round = 0; round < 500; round++) {
            List<byte[]> pieces = new ArrayList<>();
            int at = 0;
            while (at < stream.length) {
                int n = 1 + random.nextInt(Math.min(stream.length - at, 1 + random.nextInt(64)));
                byte[] p = new byte[n];
                System.arraycopy(stream, at, p, 0, n);
                pieces.add(p);
                at += n;
            }
            List<String> got = feeder.parse(pieces);
            if (!got.equals(expected)) {
                check(false, name + " random split " + round + ": " + got);
                return;
            }
        }
        check(true, name);
    }

    private static List<String> ws(List<byte[]> pieces, int seqWidth) {
        Recorder r = new Recorder();
        WsParser p = new WsParser(r, seqWidth);
        for (byte[] piece : pieces) {
            // A copy inside a larger array: the parser must respect the offsets.
            byte[] padded = new byte[piece.length + 6];
            System.arraycopy(piece, 0, padded, 3, piece.length);
            p.feed(padded, 3, 3 + piece.length);
        }
        return r.events;
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static void webSocketFrames() {
        byte[] big = new byte[70_000];
        java.util.Arrays.fill(big, (byte) 'z');
        System.arraycopy(text("0000000007"), 0, big, 0, 10);
        byte[] stream = concat(
                TestServer.frame(1, true, text("0000000042abcdefghijklmnopqrstuv")),
                TestServer.frame(1, false, text("00000")),
                TestServer.frame(9, true, text("hi")),
                TestServer.frame(0, false, text("00043x")),
                TestServer.frame(0, true, text("yz")),
                TestServer.frame(1, true, text("12345678x9tail")),
                TestServer.frame(1, true, new byte[0]),
                TestServer.frame(1, true, concat(text("0000000300"), new byte[190])),
                TestServer.frame(10, true, new byte[0]),
                TestServer.frame(1, true, big),
                TestServer.frame(8, true, new byte[] {0x03, (byte) 0xe8}),
                TestServer.frame(8, true, new byte[0]));
        List<String> expected = List.of("text 32 42", "ping hi", "text 13 43", "text 14 -1", "text 0 -1", "text 200 300",
                "text 70000 7", "close 1000", "close 1005");
        splits("websocket frames", stream, expected, pieces -> ws(pieces, 10));
        splits("websocket frames without sequence numbers", stream,
                expected.stream().map(e -> e.startsWith("text") ? e.substring(0, e.lastIndexOf(' ')) + " -1" : e).toList(),
                pieces -> ws(pieces, 0));
    }

    private static void webSocketErrors() {
        byte[] masked = {(byte) 0x81, (byte) 0x82, 1, 2, 3, 4, 5, 6};
        check(ws(List.of(masked), 10).equals(List.of("error masked_server_frame")), "masked server frame");
        check(ws(List.of(TestServer.frame(2, true, text("x"))), 10).equals(List.of("error unexpected_binary")), "binary frame");
        check(ws(List.of(TestServer.frame(0, true, text("x"))), 10).equals(List.of("error unexpected_continuation")), "lone continuation");
        check(ws(List.of(concat(TestServer.frame(1, false, text("x")), TestServer.frame(1, true, text("y")))), 10)
                .equals(List.of("error unfinished_message")), "text inside a fragmented message");
        check(ws(List.of(TestServer.frame(9, true, new byte[126])), 10).equals(List.of("error control_too_long")), "long ping");
        check(ws(List.of(new byte[] {(byte) 0xc1, 0}), 10).equals(List.of("error reserved_bits")), "RSV1 set");
        check(ws(List.of(concat(new byte[] {(byte) 0x81, 1, 'a'}, new byte[] {(byte) 0x83, 0}, TestServer.frame(1, true, text("b")))), 10)
                .equals(List.of("text 1 -1", "error reserved_opcode")), "reserved opcode stops the parser");
    }

    private static List<String> sse(List<byte[]> pieces, boolean chunked) {
        Recorder r = new Recorder();
        SseParser p = new SseParser(r, 10, chunked);
        for (byte[] piece : pieces) {
            p.feed(piece, 0, piece.length);
        }
        return r.events;
    }

    private static byte[] chunked(String body, int... cuts) {
        byte[] b = text(body);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int from = 0;
        for (int i = 0; i <= cuts.length; i++) {
            int to = i < cuts.length ? cuts[i] : b.length;
            out.writeBytes(text(Integer.toHexString(to - from) + (i == 1 ? ";ext=1" : "") + "\r\n"));
            out.write(b, from, to - from);
            out.writeBytes(text("\r\n"));
            from = to;
        }
        return out.toByteArray();
    }

    private static void sseEvents() {
        String body = ": heartbeat\n\n"
                + "id: 1\ndata: 0000000001abcdefghijklmnopqrstuv\n\n"
                + "event: x\r\ndata:0000000002xy\r\n\r\n"
                + "data: 0000000003\ndata: more\r\rdata\n\n"
                + "dat: 0000000004\n\n"
                + "datax: 0000000005\ndata:  0000000006\n\n"
                + ":\n\n"
                + "retry: 10\ndata: 00000000z7\n\n"
                + "data: 0000000008\n";
        List<String> expected = List.of("event 32 1", "event 12 2", "event 15 3", "event 0 -1", "event 11 -1", "event 10 -1");
        splits("sse identity", text(body), expected, pieces -> sse(pieces, false));
        byte[] stream = concat(chunked(body, 5, 6, 40, 41, 100), text("0\r\nTrailer: x\r\n\r\n"));
        List<String> withEnd = new ArrayList<>(expected);
        withEnd.add("end");
        splits("sse chunked", stream, withEnd, pieces -> sse(pieces, true));
        byte[] upper = concat(text("1A\r\n"), text("data: 0000000009abcdefghij"), text("\r\n"), text("2\r\n\n\n\r\n"));
        splits("sse upper-case chunk size", upper, List.of("event 20 9"), pieces -> sse(pieces, true));
    }

    private static void sseErrors() {
        check(sse(List.of(text("zz\r\n")), true).equals(List.of("error chunk_size")), "bad chunk size");
        check(sse(List.of(text("2\r\nabX")), true).equals(List.of("error chunk_end")), "chunk without CRLF");
    }

    private static void histogram() {
        for (long v = 0; v < 5_000_000_000L; v = v < 1000 ? v + 1 : v + v / 97) {
            int i = Histogram.index(v);
            long low = Histogram.lowest(i);
            long high = Histogram.lowest(i + 1);
            if (v < low || v >= high) {
                check(false, "histogram bucket of " + v + ": [" + low + ", " + high + ")");
                return;
            }
            Histogram h = new Histogram();
            h.record(v);
            h.record(v + 1_000_000_000_000L);
            long reported = h.quantile(0.5);
            if (Math.abs(reported - v) > Math.max(0.02 * v, 0)) {
                check(false, "histogram error at " + v + ": " + reported);
                return;
            }
        }
        check(true, "histogram buckets and error");
        Histogram h = new Histogram();
        for (int i = 1; i <= 1000; i++) {
            h.record(i);
        }
        check(near(h.quantile(0.5), 500) && near(h.quantile(0.99), 990) && near(h.quantile(0.999), 999) && h.max() == 1000
                && h.count() == 1000 && h.quantile(1) == 1000,
                "histogram quantiles of 1..1000: " + h.quantile(0.5) + " " + h.quantile(0.99) + " " + h.quantile(0.999));
    }

    private static boolean near(long got, long want) {
        return Math.abs(got - want) <= 0.02 * want;
    }

    private static void tracker() {
        Tracker t = new Tracker(4);
        t.sent(1, 1000, 2);
        check(!t.free(1) && t.pending(1) && t.unfinished.get() == 1, "tracker: sent");
        check(t.deliver(1, 1500, null) == 500, "tracker: first delivery latency");
        check(t.deliver(2, 1500, null) == -1, "tracker: unknown sequence number");
        check(t.deliver(1 + t.capacity(), 1500, null) == -1, "tracker: same slot, other sequence number");
        check(t.deliver(1, 1700, null) == 700 && t.unfinished.get() == 0 && t.free(1), "tracker: last delivery finishes");
        check(t.deliver(1, 1800, null) == -1, "tracker: a delivery too many");
        t.sent(2, 2000, 3);
        t.deliver(2, 2100, null);
        check(t.expire(2) == 2 && t.unfinished.get() == 0 && t.deliver(2, 2200, null) == -1 && t.expire(2) == 0, "tracker: expiry");
    }
}
