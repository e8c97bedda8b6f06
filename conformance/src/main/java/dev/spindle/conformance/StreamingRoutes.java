// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.core.Handler;
import dev.spindle.core.HttpException;
import dev.spindle.core.Router;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Routes that stream, for the conformance suite and the large-transfer checks: bodies of any size
 * made of a known pattern (byte {@code i} is {@code i % 251}), sent from an input stream, a writer
 * or a file, and an upload that a blocking handler reads as a stream and checks byte by byte.
 */
public final class StreamingRoutes {
    private static final Map<Long, Path> FILES = new ConcurrentHashMap<>();

    private StreamingRoutes() {
    }

    /** Byte {@code i} of every streamed body. */
    public static byte at(long i) {
        return (byte) (i % 251);
    }

    public static Router.Builder register(Router.Builder routes) {
        return routes
                .get("/stream/{bytes}", (req, res) -> res.contentType("application/octet-stream").body(new PatternStream(size(req)), size(req)))
                .get("/writer/{bytes}", (req, res) -> {
                    long size = size(req);
                    res.contentType("application/octet-stream").stream(out -> writePattern(out, size));
                })
                .get("/file/{bytes}", (req, res) -> res.contentType("application/octet-stream").file(file(size(req))))
                .post("/upload", Handler.blocking((req, res) -> {
                    long count = 0;
                    long mismatches = 0;
                    byte[] buf = new byte[64 * 1024];
                    try (InputStream in = req.bodyStream()) {
                        for (int n; (n = in.read(buf)) >= 0; ) {
                            for (int i = 0; i < n; i++) {
                                if (buf[i] != at(count + i)) {
                                    mismatches++;
                                }
                            }
                            count += n;
                        }
                    }
                    res.text("count:" + count + " mismatches:" + mismatches);
                }))
                .get("/heap", Handler.blocking((req, res) -> {
                    System.gc();
                    Runtime rt = Runtime.getRuntime();
                    res.text(Long.toString(rt.totalMemory() - rt.freeMemory()));
                }))
                .get("/threads", (req, res) -> res.text(Integer.toString(ManagementFactory.getThreadMXBean().getThreadCount())));
    }

    private static long size(dev.spindle.core.Request req) {
        try {
            long size = Long.parseLong(req.pathParam("bytes"));
            if (size < 0) {
                throw new NumberFormatException();
            }
            return size;
        } catch (NumberFormatException e) {
            throw new HttpException(400, "bytes must be a non-negative number");
        }
    }

    static void writePattern(OutputStream out, long size) throws IOException {
        byte[] buf = new byte[8192 + 17];
        for (long at = 0; at < size; ) {
            int n = (int) Math.min(buf.length, size - at);
            for (int i = 0; i < n; i++) {
                buf[i] = at(at + i);
            }
            out.write(buf, 0, n);
            at += n;
        }
    }

    /** A file of {@code size} pattern bytes, written once per size and process. */
    static Path file(long size) {
        return FILES.computeIfAbsent(size, s -> {
            try {
                Path file = Files.createTempFile("spindle-pattern-", ".bin");
                file.toFile().deleteOnExit();
                try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.WRITE)) {
                    writePattern(out, s);
                }
                return file;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** The pattern as a stream of {@code length} bytes. */
    public static final class PatternStream extends InputStream {
        private final long length;
        private long at;

        public PatternStream(long length) {
            this.length = length;
        }

        @Override
        public int read() {
            return at < length ? at(at++) & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (at >= length) {
                return -1;
            }
            int n = (int) Math.min(len, length - at);
            for (int i = 0; i < n; i++) {
                b[off + i] = at(at + i);
            }
            at += n;
            return n;
        }
    }

    /** Reads {@code in} to the end, checking it against the pattern; returns the byte count. */
    public static long verify(InputStream in) throws IOException {
        byte[] buf = new byte[64 * 1024];
        long count = 0;
        for (int n; (n = in.read(buf)) >= 0; ) {
            for (int i = 0; i < n; i++) {
                if (buf[i] != at(count + i)) {
                    throw new AssertionError("byte " + (count + i) + " is " + buf[i] + ", expected " + at(count + i));
                }
            }
            count += n;
        }
        return count;
    }
}
