// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.exchange.BodyException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.Flow;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Request bodies inflated piece by piece: every coding and header form, split at every byte, limits and corruption. */
class InflationTest {
    static final byte[] TEXT = "a request body, inflated as it arrives; ".repeat(500).getBytes(StandardCharsets.US_ASCII);

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }

    static byte[] zlib(byte[] data, boolean raw) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DeflaterOutputStream z = new DeflaterOutputStream(out, new Deflater(6, raw))) {
            z.write(data);
        }
        return out.toByteArray();
    }

    /** A gzip member with every optional header part: FEXTRA, FNAME, FCOMMENT, FHCRC (RFC 1952 2.3). */
    static byte[] gzipWithHeaderParts(byte[] data) throws IOException {
        byte[] plain = gzip(data);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {0x1f, (byte) 0x8b, 8, 2 | 4 | 8 | 16, 0, 0, 0, 0, 0, (byte) 0xff});
        out.write(new byte[] {3, 0, 'a', 'b', 'c'});
        out.writeBytes("name.txt\0".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes("a comment\0".getBytes(StandardCharsets.US_ASCII));
        out.write(new byte[] {0x12, 0x34});
        out.write(plain, 10, plain.length - 10);
        return out.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Inflates {@code coded} given in pieces of {@code piece} bytes into outputs of {@code room}. */
    static byte[] inflate(int coding, byte[] coded, int piece, int room, long limit) throws BodyException {
        Inflation inflation = new Inflation(coding, limit);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[room];
        try {
            for (int at = 0; at < coded.length; at += piece) {
                byte[] input = Arrays.copyOfRange(coded, at, Math.min(coded.length, at + piece));
                inflation.setInput(input, 0, input.length);
                for (int n; (n = inflation.inflate(buf, 0, buf.length)) > 0; ) {
                    out.write(buf, 0, n);
                }
            }
            inflation.finish();
            assertThat(inflation.finished()).isTrue();
            return out.toByteArray();
        } finally {
            inflation.end();
        }
    }

    static Stream<Arguments> codings() throws IOException {
        byte[] random = new byte[70_000];
        new Random(1).nextBytes(random);
        return Stream.of(
                Arguments.of("gzip", Inflation.GZIP, gzip(TEXT), TEXT),
                Arguments.of("gzip of random bytes", Inflation.GZIP, gzip(random), random),
                Arguments.of("gzip with every header part", Inflation.GZIP, gzipWithHeaderParts(TEXT), TEXT),
                Arguments.of("gzip, two members", Inflation.GZIP, concat(gzip(TEXT), gzip(random)), concat(TEXT, random)),
                Arguments.of("gzip of nothing", Inflation.GZIP, gzip(new byte[0]), new byte[0]),
                Arguments.of("deflate (zlib)", Inflation.DEFLATE, zlib(TEXT, false), TEXT),
                Arguments.of("deflate, raw", Inflation.DEFLATE, zlib(TEXT, true), TEXT),
                Arguments.of("deflate of random bytes", Inflation.DEFLATE, zlib(random, false), random),
                Arguments.of("no bytes at all", Inflation.GZIP, new byte[0], new byte[0]));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codings")
    void inflatesWhateverThePiecesAndTheRoom(String name, int coding, byte[] coded, byte[] expected) throws BodyException {
        assertThat(inflate(coding, coded, coded.length + 1, 64 * 1024, Long.MAX_VALUE)).isEqualTo(expected);
        assertThat(inflate(coding, coded, 7, 100, Long.MAX_VALUE)).isEqualTo(expected);
        assertThat(inflate(coding, coded, 1000, 1, Long.MAX_VALUE)).isEqualTo(expected);
    }

    /** Every split of the coded body in two, at every byte. */
    @Test
    void splitAtEveryByte() throws IOException {
        for (int coding : new int[] {Inflation.GZIP, Inflation.DEFLATE}) {
            byte[] small = "split me at every byte, please".getBytes(StandardCharsets.US_ASCII);
            byte[] coded = coding == Inflation.GZIP ? gzipWithHeaderParts(small) : zlib(small, false);
            for (int cut = 0; cut <= coded.length; cut++) {
                Inflation inflation = new Inflation(coding, Long.MAX_VALUE);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buf = new byte[16];
                for (byte[] part : new byte[][] {Arrays.copyOf(coded, cut), Arrays.copyOfRange(coded, cut, coded.length)}) {
                    inflation.setInput(part, 0, part.length);
                    for (int n; (n = inflation.inflate(buf, 0, buf.length)) > 0; ) {
                        out.write(buf, 0, n);
                    }
                }
                inflation.finish();
                inflation.end();
                assertThat(out.toByteArray()).as("coding %d cut at %d", coding, cut).isEqualTo(small);
            }
        }
    }

    /** A bomb: 10 MiB of zeros in about 10 KiB, against a 1 MiB limit, in output pieces of 16 KiB. */
    @Test
    void aBombStopsAtTheLimitWith413() throws IOException {
        byte[] bomb = gzip(new byte[10 << 20]);
        assertThat(bomb.length).isLessThan(20_000);
        assertThatThrownBy(() -> inflate(Inflation.GZIP, bomb, 4096, 16 * 1024, 1 << 20))
                .isInstanceOfSatisfying(BodyException.class, e -> assertThat(e.status).isEqualTo(413));
        assertThat(inflate(Inflation.GZIP, bomb, 4096, 16 * 1024, 10 << 20)).hasSize(10 << 20);
    }

    static Stream<Arguments> corrupt() throws IOException {
        byte[] gz = gzip(TEXT);
        byte[] badCrc = gz.clone();
        badCrc[gz.length - 8] ^= 1;
        byte[] badLength = gz.clone();
        badLength[gz.length - 1] ^= 1;
        byte[] badData = gz.clone();
        for (int i = 20; i < 40; i++) {
            badData[i] = (byte) 0xff;
        }
        byte[] zl = zlib(TEXT, false);
        byte[] badAdler = zl.clone();
        badAdler[zl.length - 1] ^= 1;
        return Stream.of(
                Arguments.of("not gzip at all", Inflation.GZIP, "hello, plain text".getBytes(StandardCharsets.US_ASCII)),
                Arguments.of("gzip, another method", Inflation.GZIP, new byte[] {0x1f, (byte) 0x8b, 7, 0, 0, 0, 0, 0, 0, 0}),
                Arguments.of("gzip, reserved flags", Inflation.GZIP, new byte[] {0x1f, (byte) 0x8b, 8, (byte) 0x80, 0, 0, 0, 0, 0, 0}),
                Arguments.of("gzip, a wrong CRC", Inflation.GZIP, badCrc),
                Arguments.of("gzip, a wrong length", Inflation.GZIP, badLength),
                Arguments.of("gzip, corrupt data", Inflation.GZIP, badData),
                Arguments.of("gzip, cut in the header", Inflation.GZIP, Arrays.copyOf(gz, 5)),
                Arguments.of("gzip, cut in the data", Inflation.GZIP, Arrays.copyOf(gz, gz.length / 2)),
                Arguments.of("gzip, cut in the trailer", Inflation.GZIP, Arrays.copyOf(gz, gz.length - 3)),
                Arguments.of("gzip, garbage after", Inflation.GZIP, concat(gz, new byte[] {1, 2, 3})),
                Arguments.of("deflate, a wrong Adler-32", Inflation.DEFLATE, badAdler),
                Arguments.of("deflate, cut", Inflation.DEFLATE, Arrays.copyOf(zl, zl.length / 2)),
                Arguments.of("deflate, garbage after", Inflation.DEFLATE, concat(zl, new byte[] {9})));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corrupt")
    void aBodyNotValidInItsCodingIs400(String name, int coding, byte[] coded) {
        for (int piece : new int[] {coded.length, 3}) {
            assertThatThrownBy(() -> inflate(coding, coded, piece, 512, Long.MAX_VALUE))
                    .isInstanceOfSatisfying(BodyException.class, e -> assertThat(e.status).isEqualTo(400));
        }
    }

    @Test
    void theStreamFormReportsItsFailureAndThrowsIt() throws IOException {
        byte[] bomb = gzip(new byte[4 << 20]);
        BodyException[] told = new BodyException[1];
        try (InflatingInputStream in = new InflatingInputStream(new java.io.ByteArrayInputStream(bomb), Inflation.GZIP, 1 << 20, e -> told[0] = e)) {
            assertThatThrownBy(() -> in.transferTo(java.io.OutputStream.nullOutputStream()))
                    .isInstanceOfSatisfying(BodyException.class, e -> assertThat(e.status).isEqualTo(413));
        }
        assertThat(told[0].status).isEqualTo(413);
        try (InflatingInputStream in = new InflatingInputStream(new java.io.ByteArrayInputStream(gzip(TEXT)), Inflation.GZIP, Long.MAX_VALUE, e -> {
        })) {
            assertThat(in.readAllBytes()).isEqualTo(TEXT);
        }
    }

    /** The chunks form: one item per request, however far a chunk inflates; a failure to onError. */
    @Test
    void theChunksFormHonoursDemand() throws Exception {
        byte[] coded = gzip(new byte[1 << 20]);
        java.util.List<byte[]> upstream = new java.util.ArrayList<>();
        for (int at = 0; at < coded.length; at += 300) {
            upstream.add(Arrays.copyOfRange(coded, at, Math.min(coded.length, at + 300)));
        }
        java.util.List<Integer> items = new java.util.ArrayList<>();
        java.util.concurrent.CompletableFuture<Throwable> ended = new java.util.concurrent.CompletableFuture<>();
        Flow.Subscription[] sub = new Flow.Subscription[1];
        InflatingSubscriber inflating = new InflatingSubscriber(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                sub[0] = s;
            }

            @Override
            public void onNext(java.nio.ByteBuffer item) {
                items.add(item.remaining());
            }

            @Override
            public void onError(Throwable t) {
                ended.complete(t);
            }

            @Override
            public void onComplete() {
                ended.complete(null);
            }
        }, Inflation.GZIP, Long.MAX_VALUE, e -> {
        });
        int[] next = {0};
        inflating.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {
                for (long i = 0; i < n && next[0] < upstream.size(); i++) {
                    byte[] chunk = upstream.get(next[0]++);
                    inflating.onNext(java.nio.ByteBuffer.wrap(chunk));
                }
                if (next[0] == upstream.size()) {
                    inflating.onComplete();
                }
            }

            @Override
            public void cancel() {
            }
        });
        sub[0].request(3);
        assertThat(items).hasSize(3);
        assertThat(items).allMatch(n -> n <= 64 * 1024);
        sub[0].request(Long.MAX_VALUE);
        assertThat(ended.get()).isNull();
        assertThat(items.stream().mapToLong(Integer::longValue).sum()).isEqualTo(1 << 20);
    }
}
