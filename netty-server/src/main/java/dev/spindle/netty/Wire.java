// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.BenchmarkLimits;
import dev.spindle.references.support.Fixtures;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DateFormatter;
import io.netty.util.AsciiString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Date;

/**
 * What the responses are made of, encoded once: header names and values as {@link AsciiString}s
 * (written to the wire without re-encoding) and the static bodies as unreleasable direct buffers
 * that every response shares through a duplicate.
 */
final class Wire {
    static final int MAX_BODY_SIZE = 16 * 1024 * 1024;
    static final int MAX_REQUEST_LINE = 8192;
    static final int MAX_HEADER_SIZE = 32 * 1024;

    static final AsciiString SERVER = AsciiString.cached("spindle");
    static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain; charset=utf-8");
    static final AsciiString APPLICATION_JSON = AsciiString.cached("application/json");
    static final AsciiString OCTET_STREAM = AsciiString.cached("application/octet-stream");
    static final AsciiString ALLOW_GET = AsciiString.cached("GET, HEAD");
    static final AsciiString ALLOW_POST = AsciiString.cached("POST");

    static final ByteBuf HELLO = constant("Hello, World!");
    static final ByteBuf HELLO_JSON = constant("{\"message\":\"Hello, World!\"}");
    static final ByteBuf OK = constant("OK");
    /** {@code /users-list}: ~2 KB of JSON, the same bytes as Spindle's app (gzip-compressed when asked, see NettyServer). */
    static final ByteBuf USERS_LIST = constant(Fixtures.usersList());
    static final AsciiString HELLO_LENGTH = AsciiString.cached(Integer.toString(HELLO.readableBytes()));
    static final AsciiString HELLO_JSON_LENGTH = AsciiString.cached(Integer.toString(HELLO_JSON.readableBytes()));
    static final AsciiString USERS_LIST_LENGTH = AsciiString.cached(Integer.toString(USERS_LIST.readableBytes()));
    static final AsciiString OK_LENGTH = AsciiString.cached(Integer.toString(OK.readableBytes()));

    /** The Date value, refreshed once a second by a task on an event loop rather than read per response. */
    private static volatile AsciiString date = formatNow();

    private Wire() {
    }

    private static ByteBuf constant(String text) {
        return constant(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static ByteBuf constant(byte[] bytes) {
        return Unpooled.unreleasableBuffer(Unpooled.directBuffer(bytes.length).writeBytes(bytes)).asReadOnly();
    }

    /** {@code /download}'s bytes in memory, read once when first asked for (where a file region cannot go: TLS, HTTP/2). */
    static ByteBuf downloadBytes() {
        return DownloadBytes.BYTES;
    }

    private static final class DownloadBytes {
        static final ByteBuf BYTES = read();

        private static ByteBuf read() {
            try {
                byte[] bytes = Files.readAllBytes(Fixtures.downloadFile(BenchmarkLimits.DOWNLOAD_BYTES));
                return Unpooled.unreleasableBuffer(Unpooled.directBuffer(bytes.length).writeBytes(bytes)).asReadOnly();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static AsciiString date() {
        return date;
    }

    static void refreshDate() {
        date = formatNow();
    }

    private static AsciiString formatNow() {
        return new AsciiString(DateFormatter.format(new Date()));
    }

    /**
     * A path segment with its percent-escapes decoded as UTF-8 ({@code +} stays {@code +} in a
     * path); null when an escape is malformed.
     */
    static String decodeSegment(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '%') {
                out.write(c);
                continue;
            }
            if (i + 2 >= s.length()) {
                return null;
            }
            int hi = Character.digit(s.charAt(i + 1), 16);
            int lo = Character.digit(s.charAt(i + 2), 16);
            if (hi < 0 || lo < 0) {
                return null;
            }
            out.write(hi << 4 | lo);
            i += 2;
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
