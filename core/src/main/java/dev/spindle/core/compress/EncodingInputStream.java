// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import dev.spindle.core.ContentEncoding;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A streamed body (an input stream, a file) compressed as it is read: a piece of the source is
 * read and pushed through the encoder, whose output is handed out. When the source has nothing
 * more at hand ({@code available()} is 0), what was read is flushed, so a slow source (events as
 * they happen) is not held back in the encoder. Holds one piece and its output.
 */
final class EncodingInputStream extends InputStream {
    private static final int PIECE = 16 * 1024;

    private final InputStream source;
    private final ContentEncoding encoding;
    private final ByteSink out = new ByteSink(PIECE + 64);
    /** Source bytes still to be read, or -1 for all of them. */
    private long remaining;
    private byte[] piece;
    private OutputStream encoder;
    private boolean sourceEnded;
    private boolean closed;

    EncodingInputStream(InputStream source, long length, ContentEncoding encoding) {
        this.source = source;
        this.remaining = length;
        this.encoding = encoding;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        while (out.available() == 0) {
            if (sourceEnded || closed) {
                return -1;
            }
            if (encoder == null) {
                encoder = encoding.encoder(out);
                piece = new byte[PIECE];
            }
            int want = remaining < 0 ? PIECE : (int) Math.min(PIECE, remaining);
            int n = want == 0 ? -1 : source.read(piece, 0, want);
            if (n < 0) {
                sourceEnded = true;
                encoder.close();
                continue;
            }
            if (remaining > 0) {
                remaining -= n;
            }
            encoder.write(piece, 0, n);
            if (remaining != 0 && source.available() <= 0) {
                encoder.flush();
            }
        }
        return out.read(b, off, len);
    }

    @Override
    public int available() {
        return out.available();
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            source.close();
        } finally {
            if (encoder != null && !sourceEnded) {
                // cut short: the encoder's native state is released, its last bytes unread
                sourceEnded = true;
                encoder.close();
            }
        }
    }
}
