// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The JDK codings: whole bodies of every kind, streams with sync flushes, and the pool of deflaters. */
class DeflateEncodingTest {
    private static final byte[] TEXT = "the quick brown fox jumps over the lazy dog; ".repeat(2000).getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RANDOM = new byte[300_000];

    static {
        new Random(7).nextBytes(RANDOM);
    }

    static byte[] decode(boolean gzip, byte[] coded) throws IOException {
        try (InputStream in = gzip ? new GZIPInputStream(new ByteArrayInputStream(coded)) : new InflaterInputStream(new ByteArrayInputStream(coded))) {
            return in.readAllBytes();
        }
    }

    @ParameterizedTest(name = "gzip {0}")
    @ValueSource(booleans = {true, false})
    void wholeBodiesOfEveryKindDecodeToTheirBytes(boolean gzip) throws IOException {
        DeflateEncoding e = gzip ? DeflateEncoding.GZIP : DeflateEncoding.DEFLATE;
        for (byte[] body : new byte[][] {new byte[0], "x".getBytes(StandardCharsets.US_ASCII), TEXT, RANDOM}) {
            assertThat(decode(gzip, e.encode(body, 0, body.length))).isEqualTo(body);
            assertThat(decode(gzip, e.encode(ByteBuffer.wrap(body)))).isEqualTo(body);
            ByteBuffer direct = ByteBuffer.allocateDirect(body.length).put(body).flip();
            assertThat(decode(gzip, e.encode(direct))).isEqualTo(body);
            assertThat(direct.position()).as("the buffer is left as it was").isZero();
        }
        assertThat(decode(gzip, e.encode(TEXT, 100, 50))).isEqualTo(java.util.Arrays.copyOfRange(TEXT, 100, 150));
        String ascii = new String(TEXT, StandardCharsets.US_ASCII) + "tail";
        assertThat(decode(gzip, e.encode(ascii))).isEqualTo(ascii.getBytes(StandardCharsets.US_ASCII));
        String unicode = "naïve café ✓ 𝄞 ".repeat(3000);
        assertThat(new String(decode(gzip, e.encode(unicode)), StandardCharsets.UTF_8)).isEqualTo(unicode);
        assertThat(e.encode(TEXT, 0, TEXT.length).length).as("text compresses").isLessThan(TEXT.length / 20);
    }

    /** Each flush hands out a sync-flushed block: what was written so far inflates at once, before the stream ends. */
    @ParameterizedTest(name = "gzip {0}")
    @ValueSource(booleans = {true, false})
    void aFlushMakesWhatWasWrittenDecodable(boolean gzip) throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        Inflater inflater = new Inflater(gzip);
        ByteArrayOutputStream inflated = new ByteArrayOutputStream();
        int fed = 0;
        try (OutputStream z = (gzip ? DeflateEncoding.GZIP : DeflateEncoding.DEFLATE).encoder(sink)) {
            for (int i = 0; i < 50; i++) {
                byte[] event = ("data: event " + i + "\n\n").getBytes(StandardCharsets.US_ASCII);
                z.write(event);
                z.flush();
                byte[] wire = sink.toByteArray();
                int from = fed == 0 && gzip ? 10 : fed;
                inflater.setInput(wire, from, wire.length - from);
                fed = wire.length;
                byte[] out = new byte[1024];
                for (int n; (n = inflater.inflate(out)) > 0; ) {
                    inflated.write(out, 0, n);
                }
                assertThat(inflated.toString(StandardCharsets.US_ASCII)).as("after flush %d", i).endsWith("data: event " + i + "\n\n");
            }
        }
        inflater.end();
        assertThat(decode(gzip, sink.toByteArray())).hasSize(inflated.size());
    }

    @ParameterizedTest(name = "gzip {0}")
    @ValueSource(booleans = {true, false})
    void aStreamWrittenInPiecesDecodesToTheWhole(boolean gzip) throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (OutputStream z = (gzip ? DeflateEncoding.GZIP : DeflateEncoding.DEFLATE).encoder(sink)) {
            Random r = new Random(3);
            for (int at = 0; at < RANDOM.length; ) {
                int n = Math.min(RANDOM.length - at, r.nextInt(70_000));
                z.write(RANDOM, at, n);
                at += n;
                if (r.nextInt(4) == 0) {
                    z.flush();
                }
            }
            z.write(TEXT);
            z.write('!');
        }
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(RANDOM);
        expected.writeBytes(TEXT);
        expected.write('!');
        assertThat(decode(gzip, sink.toByteArray())).isEqualTo(expected.toByteArray());
    }

    @Test
    void anInputStreamIsCompressedAsItIsRead() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.writeBytes(TEXT);
        all.writeBytes(RANDOM);
        byte[] source = all.toByteArray();
        try (InputStream in = new EncodingInputStream(new ByteArrayInputStream(source), -1, DeflateEncoding.GZIP)) {
            assertThat(decode(true, in.readAllBytes())).isEqualTo(source);
        }
        // a length reads no further than it says
        try (InputStream in = new EncodingInputStream(new ByteArrayInputStream(source), 1000, DeflateEncoding.DEFLATE)) {
            assertThat(decode(false, in.readAllBytes())).isEqualTo(java.util.Arrays.copyOf(source, 1000));
        }
    }

    /** Deflaters go back to the pool after every body, reused rather than made again; past its bound they are ended. */
    @Test
    void deflatersAreReusedAndThePoolIsBounded() throws Exception {
        DeflateEncoding e = DeflateEncoding.of(true, 3);
        e.encode(TEXT, 0, TEXT.length);
        assertThat(e.idle()).isEqualTo(1);
        DeflateEncoding.Work first = e.take();
        e.give(first);
        for (int i = 0; i < 100; i++) {
            e.encode(TEXT, 0, TEXT.length);
            try (OutputStream z = e.encoder(OutputStream.nullOutputStream())) {
                z.write(TEXT);
            }
        }
        assertThat(e.idle()).as("one body at a time needs one deflater").isEqualTo(1);
        assertThat(e.take()).as("the same deflater, reused").isSameAs(first);
        e.give(first);

        // more bodies at once than the pool keeps: the surplus is ended when they are given back
        int concurrent = DeflateEncoding.POOLED + 8;
        List<OutputStream> open = new ArrayList<>();
        for (int i = 0; i < concurrent; i++) {
            OutputStream z = e.encoder(OutputStream.nullOutputStream());
            z.write(TEXT, 0, 10);
            open.add(z);
        }
        assertThat(e.idle()).isZero();
        for (OutputStream z : open) {
            z.close();
        }
        assertThat(e.idle()).isEqualTo(DeflateEncoding.POOLED);

        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<byte[]>> coded = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                coded.add(threads.submit(() -> {
                    go.await();
                    return e.encode(RANDOM, 0, RANDOM.length);
                }));
            }
            go.countDown();
            for (Future<byte[]> f : coded) {
                assertThat(decode(true, f.get())).isEqualTo(RANDOM);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(e.idle()).isLessThanOrEqualTo(DeflateEncoding.POOLED);
    }

    /** The shared encodings, made when the class loads, have their pool too. */
    @Test
    void theSharedEncodingsPoolTheirDeflaters() {
        for (DeflateEncoding e : new DeflateEncoding[] {DeflateEncoding.GZIP, DeflateEncoding.DEFLATE}) {
            e.encode(TEXT, 0, TEXT.length);
            DeflateEncoding.Work first = e.take();
            e.give(first);
            e.encode(TEXT, 0, TEXT.length);
            assertThat(e.take()).isSameAs(first);
            e.give(first);
            assertThat(e.idle()).isPositive();
        }
    }

    @Test
    void aClosedStreamRefusesWritesAndClosesOnce() throws IOException {
        DeflateEncoding e = DeflateEncoding.of(false, 1);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        OutputStream z = e.encoder(sink);
        z.write(TEXT);
        z.close();
        int length = sink.size();
        z.close();
        assertThat(sink.size()).isEqualTo(length);
        assertThatThrownBy(() -> z.write(1)).isInstanceOf(IOException.class);
        assertThat(e.idle()).isEqualTo(1);
        assertThat(decode(false, sink.toByteArray())).isEqualTo(TEXT);
    }

    @Test
    void levelsOutsideOneToNineAreRefused() {
        assertThatThrownBy(() -> DeflateEncoding.of(true, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeflateEncoding.of(true, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThat(DeflateEncoding.of(true, 6)).isSameAs(DeflateEncoding.GZIP);
    }
}
