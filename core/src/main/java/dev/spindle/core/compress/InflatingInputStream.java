// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import dev.spindle.core.exchange.BodyException;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;

/**
 * A streamed request body as its handler reads it: the coded bytes from the body's own stream,
 * inflated as they are read. Holds one piece of coded input; a failure ({@link Inflation}'s 413 or
 * 400) is thrown from {@code read} and told to {@code failed}, so the connection answers it.
 */
public final class InflatingInputStream extends InputStream {
    private static final int PIECE = 16 * 1024;

    private final InputStream coded;
    private final Inflation inflation;
    private final Consumer<BodyException> failed;
    private final byte[] piece = new byte[PIECE];
    private boolean ended;
    private BodyException failure;

    public InflatingInputStream(InputStream coded, int coding, long limit, Consumer<BodyException> failed) {
        this.coded = coded;
        this.inflation = new Inflation(coding, limit);
        this.failed = failed;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (failure != null) {
            throw failure;
        }
        if (len == 0) {
            return 0;
        }
        try {
            while (!ended) {
                int n = inflation.inflate(b, off, len);
                if (n > 0) {
                    return n;
                }
                int r = coded.read(piece, 0, piece.length);
                if (r < 0) {
                    ended = true;
                    inflation.finish();
                    inflation.end();
                } else {
                    inflation.setInput(piece, 0, r);
                }
            }
            return -1;
        } catch (BodyException e) {
            failure = e;
            ended = true;
            inflation.end();
            failed.accept(e);
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        if (!ended) {
            ended = true;
            inflation.end();
        }
        coded.close();
    }
}
