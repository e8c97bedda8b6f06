// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.spi.Connection;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The client side of an HTTP/2 connection under test, written independently of the server's
 * frame writer: it encodes frames and header blocks (literals without indexing) by hand, feeds
 * them to a {@link Connection}, and parses what the connection answers into frames.
 */
final class H2Peer {
    static final int DATA = 0, HEADERS = 1, PRIORITY = 2, RST_STREAM = 3, SETTINGS = 4, PUSH_PROMISE = 5, PING = 6,
            GOAWAY = 7, WINDOW_UPDATE = 8, CONTINUATION = 9;
    static final int END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY_FLAG = 0x20;
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** One frame the server sent. */
    record Frame(int type, int flags, int stream, byte[] payload) {
        boolean has(int flag) {
            return (flags & flag) != 0;
        }

        int int32(int at) {
            return ((payload[at] & 0xFF) << 24) | ((payload[at + 1] & 0xFF) << 16) | ((payload[at + 2] & 0xFF) << 8) | (payload[at + 3] & 0xFF);
        }

        /** The error code of a RST_STREAM or GOAWAY. */
        int errorCode() {
            return type == GOAWAY ? int32(4) : int32(0);
        }

        @Override
        public String toString() {
            return "Frame[type=" + type + ", flags=" + flags + ", stream=" + stream + ", length=" + payload.length + "]";
        }
    }

    /** A response assembled from a stream's frames. */
    record Response(Map<String, String> headers, String body, boolean ended) {
        String status() {
            return headers.get(":status");
        }
    }

    private final Connection connection;
    private final HpackDecoder decoder = new HpackDecoder(4096, 1 << 20);
    private final List<Frame> frames = new ArrayList<>();
    private byte[] partial = new byte[0];
    private final ByteArrayOutputStream block = new ByteArrayOutputStream();
    private final Map<Integer, Map<String, String>> headersByStream = new LinkedHashMap<>();

    H2Peer(Connection connection) {
        this.connection = connection;
    }

    /** Sends the preface and an empty SETTINGS frame. */
    H2Peer start() {
        send(concat(PREFACE, frame(SETTINGS, 0, 0, new byte[0])));
        return this;
    }

    void send(byte[] bytes) {
        connection.received(ByteBuffer.wrap(bytes));
    }

    /** Everything the connection has to write now, parsed; the frames are kept for later lookups too. */
    List<Frame> read() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(partial);
        for (int guard = 0; guard < 10_000; guard++) {
            ByteBuffer out = connection.outbound();
            if (!out.hasRemaining()) {
                break;
            }
            byte[] chunk = new byte[out.remaining()];
            out.get(chunk);
            all.writeBytes(chunk);
            connection.written(chunk.length);
        }
        byte[] bytes = all.toByteArray();
        List<Frame> got = new ArrayList<>();
        int p = 0;
        while (bytes.length - p >= 9) {
            int length = ((bytes[p] & 0xFF) << 16) | ((bytes[p + 1] & 0xFF) << 8) | (bytes[p + 2] & 0xFF);
            if (bytes.length - p < 9 + length) {
                break;
            }
            int stream = (((bytes[p + 5] & 0x7F) << 24) | ((bytes[p + 6] & 0xFF) << 16) | ((bytes[p + 7] & 0xFF) << 8) | (bytes[p + 8] & 0xFF));
            byte[] payload = new byte[length];
            System.arraycopy(bytes, p + 9, payload, 0, length);
            got.add(new Frame(bytes[p + 3] & 0xFF, bytes[p + 4] & 0xFF, stream, payload));
            p += 9 + length;
        }
        partial = java.util.Arrays.copyOfRange(bytes, p, bytes.length);
        frames.addAll(got);
        try {
            decodeBlocks(got);
        } catch (HpackException e) {
            throw new AssertionError("the server sent a header block that does not decode", e);
        }
        return got;
    }

    /** The response on {@code stream} from the frames read so far (reading first). */
    Response response(int stream) throws HpackException {
        read();
        Map<String, String> headers = headersByStream.getOrDefault(stream, Map.of());
        StringBuilder body = new StringBuilder();
        boolean ended = false;
        for (Frame f : frames) {
            if (f.stream == stream && f.type == DATA) {
                body.append(new String(f.payload, StandardCharsets.ISO_8859_1));
            }
            ended |= f.stream == stream && (f.type == DATA || f.type == HEADERS) && f.has(END_STREAM);
        }
        return new Response(headers, body.toString(), ended);
    }

    /** Header blocks are decoded as they arrive, in order, since the dynamic table depends on every one. */
    private void decodeBlocks(List<Frame> got) throws HpackException {
        for (Frame f : got) {
            if (f.type == HEADERS || f.type == CONTINUATION) {
                block.writeBytes(f.payload);
                if (f.has(END_HEADERS)) {
                    headersByStream.computeIfAbsent(f.stream, k -> new LinkedHashMap<>()).putAll(decode(block.toByteArray()));
                    block.reset();
                }
            }
        }
    }

    private Map<String, String> decode(byte[] block) throws HpackException {
        Map<String, String> fields = new LinkedHashMap<>();
        decoder.decode(block, 0, block.length, (n, no, nl, v, vo, vl) -> fields.put(
                new String(n, no, nl, StandardCharsets.ISO_8859_1), new String(v, vo, vl, StandardCharsets.ISO_8859_1)));
        return fields;
    }

    List<Frame> frames() {
        return frames;
    }

    static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >>> 16);
        f[1] = (byte) (payload.length >>> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        f[5] = (byte) (stream >>> 24);
        f[6] = (byte) (stream >>> 16);
        f[7] = (byte) (stream >>> 8);
        f[8] = (byte) stream;
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    /** A header block of literals without indexing, from name/value pairs. */
    static byte[] block(String... nameValues) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < nameValues.length; i += 2) {
            b.write(0x00);
            string(b, nameValues[i]);
            string(b, nameValues[i + 1]);
        }
        return b.toByteArray();
    }

    private static void string(ByteArrayOutputStream b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        integer(b, bytes.length, 7, 0);
        b.writeBytes(bytes);
    }

    static void integer(ByteArrayOutputStream b, int value, int prefixBits, int first) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            b.write(first | value);
            return;
        }
        b.write(first | max);
        value -= max;
        while (value >= 128) {
            b.write((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        b.write(value);
    }

    /** A GET request's HEADERS frame. */
    static byte[] get(int stream, String path) {
        return frame(HEADERS, END_HEADERS | END_STREAM, stream,
                block(":method", "GET", ":scheme", "http", ":path", path, ":authority", "localhost"));
    }

    /** A request's HEADERS frame without END_STREAM: a body follows. */
    static byte[] post(int stream, String path, String... extra) {
        String[] fields = new String[8 + extra.length];
        System.arraycopy(new String[] {":method", "POST", ":scheme", "http", ":path", path, ":authority", "localhost"}, 0, fields, 0, 8);
        System.arraycopy(extra, 0, fields, 8, extra.length);
        return frame(HEADERS, END_HEADERS, stream, block(fields));
    }

    static byte[] data(int stream, String text, boolean end) {
        return frame(DATA, end ? END_STREAM : 0, stream, text.getBytes(StandardCharsets.ISO_8859_1));
    }

    static byte[] settings(int... idValues) {
        byte[] p = new byte[idValues.length * 3];
        for (int i = 0, o = 0; i < idValues.length; i += 2, o += 6) {
            p[o] = (byte) (idValues[i] >>> 8);
            p[o + 1] = (byte) idValues[i];
            p[o + 2] = (byte) (idValues[i + 1] >>> 24);
            p[o + 3] = (byte) (idValues[i + 1] >>> 16);
            p[o + 4] = (byte) (idValues[i + 1] >>> 8);
            p[o + 5] = (byte) idValues[i + 1];
        }
        return frame(SETTINGS, 0, 0, p);
    }

    static byte[] windowUpdate(int stream, int increment) {
        return frame(WINDOW_UPDATE, 0, stream, int32(increment));
    }

    static byte[] rst(int stream, int code) {
        return frame(RST_STREAM, 0, stream, int32(code));
    }

    static byte[] ping(long payload) {
        return frame(PING, 0, 0, ByteBuffer.allocate(8).putLong(payload).array());
    }

    static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }
}
