// SPDX-License-Identifier: Apache-2.0
package dev.spindle.compression.zstd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The zstd coding on its own: frames that decode, flushes a client can decode at once, the pool of contexts. */
class ZstdEncodingTest {
    static final byte[] TEXT = "{\"id\":12345,\"name\":\"a fairly repetitive item\"},".repeat(2000).getBytes(StandardCharsets.US_ASCII);

    static byte[] decode(byte[] frame) throws IOException {
        try (InputStream in = new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(frame))) {
            return in.readAllBytes();
        }
    }

    static byte[] encode(ZstdEncoding e, byte[]... pieces) throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (OutputStream z = e.encoder(sink)) {
            for (byte[] p : pieces) {
                z.write(p);
            }
        }
        return sink.toByteArray();
    }

    @Test
    void framesDecodeToWhatWasWritten() throws IOException {
        byte[] random = new byte[200_000];
        new Random(5).nextBytes(random);
        ZstdEncoding e = ZstdEncoding.create();
        assertThat(decode(encode(e, TEXT))).isEqualTo(TEXT);
        assertThat(decode(encode(e, random, TEXT, new byte[0], "!".getBytes(StandardCharsets.US_ASCII))))
                .hasSize(random.length + TEXT.length + 1);
        assertThat(decode(encode(e))).isEmpty();
        assertThat(encode(e, TEXT).length).as("JSON compresses").isLessThan(TEXT.length / 20);
        assertThat(decode(encode(ZstdEncoding.level(19), TEXT))).isEqualTo(TEXT);
        assertThat(e.name()).isEqualTo("zstd");
    }

    /** Each flush ends a block: what was written so far decodes before the frame ends. */
    @Test
    void aFlushMakesWhatWasWrittenDecodable() throws IOException {
        PipedSink sink = new PipedSink();
        try (OutputStream z = ZstdEncoding.create().encoder(sink);
             ZstdInputStreamNoFinalizer in = new ZstdInputStreamNoFinalizer(sink.reader())) {
            in.setContinuous(true);
            for (int i = 0; i < 20; i++) {
                String event = "data: event " + i + "\n\n";
                z.write(event.getBytes(StandardCharsets.US_ASCII));
                z.flush();
                byte[] got = new byte[event.length()];
                int n = 0;
                while (n < got.length) {
                    int r = in.read(got, n, got.length - n);
                    assertThat(r).as("event %d decodes before the frame ends", i).isPositive();
                    n += r;
                }
                assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo(event);
            }
        }
    }

    /** Bytes written so far, read back as they come; reading past them ends the read (no blocking). */
    private static final class PipedSink extends OutputStream {
        private final ByteArrayOutputStream all = new ByteArrayOutputStream();
        private int read;

        @Override
        public void write(int b) {
            all.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            all.write(b, off, len);
        }

        InputStream reader() {
            return new InputStream() {
                @Override
                public int read() {
                    byte[] one = new byte[1];
                    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    byte[] bytes = all.toByteArray();
                    int n = Math.min(len, bytes.length - PipedSink.this.read);
                    if (n <= 0) {
                        return 0;
                    }
                    System.arraycopy(bytes, PipedSink.this.read, b, off, n);
                    PipedSink.this.read += n;
                    return n;
                }
            };
        }
    }

    @Test
    void contextsAreReusedAndThePoolIsBounded() throws IOException {
        ZstdEncoding e = ZstdEncoding.create();
        for (int i = 0; i < 50; i++) {
            assertThat(decode(encode(e, TEXT))).isEqualTo(TEXT);
        }
        assertThat(e.idle()).as("one body at a time needs one context").isEqualTo(1);
        List<OutputStream> open = new ArrayList<>();
        for (int i = 0; i < ZstdEncoding.POOLED + 5; i++) {
            OutputStream z = e.encoder(OutputStream.nullOutputStream());
            z.write(TEXT, 0, 100);
            open.add(z);
        }
        assertThat(e.idle()).isZero();
        for (OutputStream z : open) {
            z.close();
        }
        assertThat(e.idle()).isEqualTo(ZstdEncoding.POOLED);
    }

    @Test
    void aClosedStreamRefusesWritesAndLevelsAreChecked() throws IOException {
        OutputStream z = ZstdEncoding.create().encoder(new ByteArrayOutputStream());
        z.close();
        z.close();
        assertThatThrownBy(() -> z.write(1)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> ZstdEncoding.level(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ZstdEncoding.level(20)).isInstanceOf(IllegalArgumentException.class);
    }
}
