// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Locale;
import java.util.zip.Deflater;

/**
 * The permessage-deflate extension (RFC 7692): the server's side of its negotiation, and the
 * compression of the messages a server sends. A server here always sends
 * {@code server_no_context_takeover} (7.1.1.1 lets it), so no compressor is held by a connection
 * between messages (they come from a shared pool); it keeps the client's context unless the client offered
 * {@code client_no_context_takeover}. The JDK's {@code Deflater} cannot narrow its window, so an
 * offer that asks for {@code server_max_window_bits} below 15 is declined, as 7.1.2.1 requires of a
 * server that cannot honour it; {@code client_max_window_bits} needs nothing of a decompressor,
 * which reads any window up to 15.
 */
final class PerMessageDeflate {
    static final String NAME = "permessage-deflate";
    /** What a sync flush ends with, left off the wire and put back to decompress (RFC 7692 7.2.1, 7.2.2). */
    static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};

    /** What was agreed: whether the client resets its context per message, and the answer's field value. */
    record Agreement(boolean clientNoContextTakeover, String response) {
    }

    private PerMessageDeflate() {
    }

    /**
     * Picks the first permessage-deflate offer this side can accept from the
     * {@code Sec-WebSocket-Extensions} fields of a request (offers in order, RFC 6455 9.1).
     *
     * @return the agreement, or null when none was offered or none can be accepted
     */
    static Agreement negotiate(List<String> fields) {
        for (String field : fields) {
            for (String offer : split(field, ',')) {
                List<String> params = split(offer, ';');
                if (params.isEmpty() || !params.getFirst().equalsIgnoreCase(NAME)) {
                    continue;
                }
                Agreement accepted = accept(params.subList(1, params.size()));
                if (accepted != null) {
                    return accepted;
                }
            }
        }
        return null;
    }

    /** The answer to one offer's parameters, or null when they are invalid or ask what this side cannot do (7.1). */
    private static Agreement accept(List<String> params) {
        boolean serverNoContext = false;
        boolean clientNoContext = false;
        boolean serverBits = false;
        boolean clientBits = false;
        for (String param : params) {
            int eq = param.indexOf('=');
            String name = (eq < 0 ? param : param.substring(0, eq)).trim().toLowerCase(Locale.ROOT);
            String value = eq < 0 ? null : unquote(param.substring(eq + 1).trim());
            boolean repeated;
            switch (name) {
                case "server_no_context_takeover" -> {
                    repeated = serverNoContext;
                    serverNoContext = true;
                    if (value != null) {
                        return null;
                    }
                }
                case "client_no_context_takeover" -> {
                    repeated = clientNoContext;
                    clientNoContext = true;
                    if (value != null) {
                        return null;
                    }
                }
                case "server_max_window_bits" -> {
                    repeated = serverBits;
                    serverBits = true;
                    // only 15 can be honoured (the JDK's window); a valid smaller value declines the offer all the same
                    if (windowBits(value) != 15) {
                        return null;
                    }
                }
                case "client_max_window_bits" -> {
                    repeated = clientBits;
                    clientBits = true;
                    if (value != null && windowBits(value) < 0) {
                        return null;
                    }
                }
                default -> {
                    return null;
                }
            }
            if (repeated) {
                return null;
            }
        }
        String response = NAME + "; server_no_context_takeover" + (clientNoContext ? "; client_no_context_takeover" : "");
        return new Agreement(clientNoContext, response);
    }

    /** {@return the value of a window-bits parameter, 8 to 15, or -1 when it is not one} */
    private static int windowBits(String value) {
        if (value == null || value.length() < 1 || value.length() > 2) {
            return -1;
        }
        int bits = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            bits = bits * 10 + (c - '0');
        }
        return bits >= 8 && bits <= 15 && value.charAt(0) != '0' ? bits : -1;
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"'
                ? value.substring(1, value.length() - 1) : value;
    }

    /** The non-empty, trimmed pieces of {@code text} between {@code separator}s (no quoted separators occur in these fields). */
    private static List<String> split(String text, char separator) {
        List<String> parts = new java.util.ArrayList<>(4);
        int start = 0;
        while (start <= text.length()) {
            int at = text.indexOf(separator, start);
            int end = at < 0 ? text.length() : at;
            String part = text.substring(start, end).trim();
            if (!part.isEmpty()) {
                parts.add(part);
            }
            start = end + 1;
        }
        return parts;
    }

    /**
     * A message compressed as one deflate block sequence ended by a sync flush, without the
     * flush's last four bytes (7.2.1): the payload of the message's frames, the first with RSV1.
     * {@code deflater} is reset after, as no context is taken over.
     */
    /**
     * As {@link #compress(Deflater, byte[], int, int)} with a compressor borrowed from a pool shared
     * by every connection: as no context is taken over, any compressor serves any message, so a
     * connection holds none of the native memory one costs (hundreds of KiB) while it is idle.
     */
    static byte[] compress(byte[] message, int offset, int length) {
        Deflater deflater = POOL.poll();
        if (deflater == null) {
            deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        }
        try {
            return compress(deflater, message, offset, length);
        } finally {
            if (!POOL.offer(deflater)) {
                deflater.end();
            }
        }
    }

    /** Compressors between messages: a few per core, as that many threads compress at once. */
    private static final java.util.concurrent.ArrayBlockingQueue<Deflater> POOL =
            new java.util.concurrent.ArrayBlockingQueue<>(2 * Runtime.getRuntime().availableProcessors());

    static byte[] compress(Deflater deflater, byte[] message, int offset, int length) {
        deflater.setInput(message, offset, length);
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 2 + 16));
        byte[] chunk = new byte[Math.max(64, Math.min(length + 64, 16 * 1024))];
        int n;
        do {
            n = deflater.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
            out.write(chunk, 0, n);
        } while (n == chunk.length || !deflater.needsInput());
        deflater.reset();
        byte[] all = out.toByteArray();
        return java.util.Arrays.copyOf(all, all.length - TAIL.length);
    }
}
