// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import dev.spindle.core.http2.HpackDecoder;
import dev.spindle.core.http2.HpackException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The client's side of the HTTP/2 round-trip benchmarks, shared with the Netty anchor (netty-server's
 * {@code dev.spindle.netty.bench}) so both servers decode the very same bytes: what h2load
 * (nghttp2's HPACK encoder) sends for a GET over h2c with prior knowledge, and a reader for what
 * the server answers.
 *
 * <p>The header blocks follow nghttp2's choices: {@code :method GET} and {@code :scheme http} as
 * static indexes; {@code :path} as a literal never added to the table (nghttp2 indexes no path);
 * {@code :authority} and {@code user-agent} as literals with incremental indexing in the first
 * request, and as the dynamic-table indexes they then have in every later one (62 for the newer
 * {@code user-agent}, 63 for {@code :authority}). Every string is Huffman-coded, being shorter so.
 * The Huffman codes below were produced with RFC 7541 Appendix B's table; each side's
 * {@code @Setup} checks them by decoding (the Netty anchor with Netty's own decoder).
 */
public final class H2Requests {
    /** The client connection preface (RFC 9113 3.4). */
    public static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** Where a frame's 31-bit stream id lies: the benchmarks patch it for each new stream. */
    public static final int STREAM_ID_OFFSET = 5;
    /** What the requests carry in {@code :authority}. */
    public static final String AUTHORITY = "localhost:8080";
    /** What the requests carry in {@code user-agent}. */
    public static final String USER_AGENT = "h2load nghttp2/1.64.0";

    public static final int DATA = 0x0;
    public static final int HEADERS = 0x1;
    public static final int SETTINGS = 0x4;
    public static final int WINDOW_UPDATE = 0x8;
    public static final int FLAG_END_STREAM = 0x1;
    public static final int FLAG_ACK = 0x1;
    public static final int FLAG_END_HEADERS = 0x4;

    private static final int SETTINGS_ENABLE_PUSH = 0x2;
    private static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    private static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    private static final int DEFAULT_WINDOW = 65_535;

    private H2Requests() {
    }

    /**
     * The client's first bytes: the preface, its SETTINGS (no push, 100 streams, h2load's stream
     * window of 2^30-1) and a WINDOW_UPDATE that opens the connection's window to 2^31-1, so the
     * server's DATA is not held back by flow control for the first ~2 GB.
     */
    public static byte[] clientStart() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(PREFACE);
        byte[] settings = new byte[18];
        setting(settings, 0, SETTINGS_ENABLE_PUSH, 0);
        setting(settings, 6, SETTINGS_MAX_CONCURRENT_STREAMS, 100);
        setting(settings, 12, SETTINGS_INITIAL_WINDOW_SIZE, (1 << 30) - 1);
        out.writeBytes(frame(SETTINGS, 0, 0, settings));
        out.writeBytes(windowUpdate(0, Integer.MAX_VALUE - DEFAULT_WINDOW));
        return out.toByteArray();
    }

    /** The client's acknowledgement of the server's SETTINGS. */
    public static byte[] settingsAck() {
        return frame(SETTINGS, FLAG_ACK, 0, new byte[0]);
    }

    /** A WINDOW_UPDATE frame; stream 0 is the connection's window. */
    public static byte[] windowUpdate(int streamId, int increment) {
        byte[] payload = new byte[4];
        putInt(payload, 0, increment);
        return frame(WINDOW_UPDATE, 0, streamId, payload);
    }

    /**
     * The connection's first GET of {@code path}: HEADERS with END_STREAM and END_HEADERS, whose
     * block adds {@code :authority} and {@code user-agent} to the server's dynamic table.
     */
    public static byte[] firstGet(String path, int streamId) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(0x82); // :method GET, static index 2
        block.write(0x86); // :scheme http, static index 6
        path(block, path);
        block.write(0x41); // :authority, incremental indexing, name at static index 1
        huffman(block, AUTHORITY);
        block.write(0x7A); // user-agent, incremental indexing, name at static index 58
        huffman(block, USER_AGENT);
        return frame(HEADERS, FLAG_END_STREAM | FLAG_END_HEADERS, streamId, block.toByteArray());
    }

    /** Every later GET of {@code path} on the connection: the same fields, two of them now dynamic indexes. */
    public static byte[] nextGet(String path, int streamId) {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(0x82);
        block.write(0x86);
        path(block, path);
        block.write(0x80 | 63); // :authority, the older dynamic entry
        block.write(0x80 | 62); // user-agent, the newest
        return frame(HEADERS, FLAG_END_STREAM | FLAG_END_HEADERS, streamId, block.toByteArray());
    }

    /** The fields the GET blocks carry, in order, as a decoder should hand them out. */
    public static List<Map.Entry<String, String>> fields(String path) {
        return List.of(Map.entry(":method", "GET"), Map.entry(":scheme", "http"), Map.entry(":path", path),
                Map.entry(":authority", AUTHORITY), Map.entry("user-agent", USER_AGENT));
    }

    private static void path(ByteArrayOutputStream block, String path) {
        block.write(0x04); // :path, literal without indexing, name at static index 4
        huffman(block, path);
    }

    /** A string literal, Huffman-coded (its length is below 127, so one octet says it). */
    private static void huffman(ByteArrayOutputStream block, String s) {
        byte[] coded = HexFormat.of().parseHex(switch (s) {
            case "/plaintext" -> "62ba066a925f29";
            case "/json" -> "63a20f57";
            case AUTHORITY -> "a0e41d139d09b8f01e07";
            case USER_AGENT -> "9c541c722954d3a5358980aee34b83";
            default -> throw new IllegalArgumentException("no Huffman code prepared for " + s);
        });
        block.write(0x80 | coded.length);
        block.writeBytes(coded);
    }

    /** A frame: 9-byte header (RFC 9113 4.1) and payload. */
    public static byte[] frame(int type, int flags, int streamId, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >>> 16);
        f[1] = (byte) (payload.length >>> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        putInt(f, STREAM_ID_OFFSET, streamId);
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    private static void setting(byte[] a, int at, int id, int value) {
        a[at] = (byte) (id >>> 8);
        a[at + 1] = (byte) id;
        putInt(a, at + 2, value);
    }

    private static void putInt(byte[] a, int at, int v) {
        a[at] = (byte) (v >>> 24);
        a[at + 1] = (byte) (v >>> 16);
        a[at + 2] = (byte) (v >>> 8);
        a[at + 3] = (byte) v;
    }

    /** One frame a server sent. */
    public record Frame(int type, int flags, int stream, byte[] payload) {
        /** Whether {@code flag} is set. */
        public boolean has(int flag) {
            return (flags & flag) != 0;
        }
    }

    /** A response: its decoded header fields and its DATA, as one stream's frames carried them. */
    public record Response(int stream, Map<String, String> headers, String body, boolean ended) {
    }

    /**
     * The client's reader of what a server sends: frames, and the response header blocks decoded
     * with one HPACK decoder for the connection, as a client keeps it.
     */
    public static final class Reader {
        private final HpackDecoder decoder = new HpackDecoder(4096, 1 << 20);

        /** The frames in {@code bytes}, which must end at a frame's end. */
        public static List<Frame> frames(byte[] bytes) {
            List<Frame> frames = new ArrayList<>();
            int at = 0;
            while (at < bytes.length) {
                if (bytes.length - at < 9) {
                    throw new IllegalStateException("a partial frame header at " + at);
                }
                int length = (bytes[at] & 0xFF) << 16 | (bytes[at + 1] & 0xFF) << 8 | (bytes[at + 2] & 0xFF);
                int stream = ((bytes[at + 5] & 0x7F) << 24) | ((bytes[at + 6] & 0xFF) << 16) | ((bytes[at + 7] & 0xFF) << 8)
                        | (bytes[at + 8] & 0xFF);
                if (bytes.length - at - 9 < length) {
                    throw new IllegalStateException("a partial frame at " + at);
                }
                byte[] payload = new byte[length];
                System.arraycopy(bytes, at + 9, payload, 0, length);
                frames.add(new Frame(bytes[at + 3] & 0xFF, bytes[at + 4] & 0xFF, stream, payload));
                at += 9 + length;
            }
            return frames;
        }

        /**
         * The one response in {@code bytes}: a HEADERS frame (END_HEADERS, no padding or priority)
         * and DATA frames of one stream, and nothing else.
         */
        public Response response(byte[] bytes) {
            List<Frame> frames = frames(bytes);
            if (frames.isEmpty() || frames.getFirst().type() != HEADERS || !frames.getFirst().has(FLAG_END_HEADERS)) {
                throw new IllegalStateException("not a response with one HEADERS frame first: " + describe(frames));
            }
            Frame headers = frames.getFirst();
            Map<String, String> fields = new LinkedHashMap<>();
            try {
                decoder.decode(headers.payload(), 0, headers.payload().length, (n, no, nl, v, vo, vl) ->
                        fields.put(new String(n, no, nl, StandardCharsets.ISO_8859_1), new String(v, vo, vl, StandardCharsets.ISO_8859_1)));
            } catch (HpackException e) {
                throw new IllegalStateException("the response's header block does not decode", e);
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            boolean ended = headers.has(FLAG_END_STREAM);
            for (Frame f : frames.subList(1, frames.size())) {
                if (f.type() != DATA || f.stream() != headers.stream() || ended) {
                    throw new IllegalStateException("more than one response's frames: " + describe(frames));
                }
                body.writeBytes(f.payload());
                ended = f.has(FLAG_END_STREAM);
            }
            return new Response(headers.stream(), fields, body.toString(StandardCharsets.UTF_8), ended);
        }

        private static String describe(List<Frame> frames) {
            StringBuilder s = new StringBuilder();
            for (Frame f : frames) {
                s.append("[type ").append(f.type()).append(", flags ").append(f.flags()).append(", stream ").append(f.stream())
                        .append(", ").append(f.payload().length).append(" bytes]");
            }
            return s.toString();
        }
    }

    /**
     * Checks a response to a GET of {@code route}: 200, the route's body with END_STREAM, and the
     * fields both servers send (content-type, content-length, server, date) on stream {@code stream}.
     *
     * @throws IllegalStateException if it is not that
     */
    public static void check(Response r, int stream, String route) {
        String type = switch (route) {
            case "plaintext" -> "text/plain; charset=utf-8";
            case "json" -> "application/json";
            default -> throw new IllegalArgumentException(route);
        };
        String body = body(route);
        Map<String, String> h = r.headers();
        if (r.stream() != stream || !"200".equals(h.get(":status")) || !type.equals(h.get("content-type"))
                || !String.valueOf(body.length()).equals(h.get("content-length")) || !"spindle".equals(h.get("server"))
                || h.get("date") == null || !h.get("date").endsWith(" GMT") || !body.equals(r.body()) || !r.ended()) {
            throw new IllegalStateException("unexpected response to " + route + " on stream " + stream + ": " + r);
        }
    }

    /** The body the benchmark app answers {@code route} with. */
    public static String body(String route) {
        return switch (route) {
            case "plaintext" -> "Hello, World!";
            case "json" -> "{\"message\":\"Hello, World!\"}";
            default -> throw new IllegalArgumentException(route);
        };
    }
}
