// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.Response;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link BodySource} written to an {@code OutputStream} on a producer thread, for a body that
 * passes through a stream (a content coding): what is ready is written, and flushed once nothing
 * more is, so each burst of events reaches the client at once.
 */
public final class SourceWriter implements Response.BodyWriter {
    private final BodySource source;
    private volatile Thread thread;
    private volatile boolean woken;

    public SourceWriter(BodySource source) {
        this.source = source;
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        thread = Thread.currentThread();
        byte[] buffer = new byte[1024];
        try {
            // this thread may block: the stream's opened callback runs on it, first
            source.start(Runnable::run, this::wake);
            out.flush();
            while (true) {
                woken = false;
                long now = System.nanoTime();
                int ready = source.available(now);
                if (ready < 0) {
                    return;
                }
                if (ready > 0) {
                    if (buffer.length < ready) {
                        buffer = new byte[Math.min(ready, 64 * 1024)];
                    }
                    out.write(buffer, 0, source.take(buffer, 0, buffer.length));
                    continue;
                }
                out.flush();
                long due = source.due();
                if (!woken) {
                    if (due == Long.MAX_VALUE) {
                        LockSupport.park(this);
                    } else if (due - now > 0) {
                        LockSupport.parkNanos(this, due - now);
                    }
                }
                if (Thread.interrupted()) {
                    throw new InterruptedIOException("interrupted while streaming");
                }
            }
        } finally {
            source.cancel();
        }
    }

    private void wake() {
        woken = true;
        LockSupport.unpark(thread);
    }
}
