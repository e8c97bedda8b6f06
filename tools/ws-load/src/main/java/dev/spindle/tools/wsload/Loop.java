// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One selector thread and the connections it owns. Its counters are plain fields, read by the main
 * thread only after the thread has ended. One read buffer and one write buffer serve all its sockets.
 */
final class Loop implements Runnable {
    private static final long CHECK_NANOS = 20_000_000L;

    final Run run;
    final Selector selector;
    final List<Conn> conns = new ArrayList<>();
    final byte[] readArray = new byte[64 * 1024];
    final ByteBuffer readBuffer = ByteBuffer.wrap(readArray);
    byte[] writeArray = new byte[64 * 1024];
    ByteBuffer writeBuffer = ByteBuffer.wrap(writeArray);
    final byte[] payload;
    final byte[] closePayload = new byte[2];
    long readNanos;
    Conn publisher;
    private int nextToOpen;
    private int active;
    private int mask = ThreadLocalRandom.current().nextInt() | 1;

    long completions;
    /** {@link #completions} per measured window (--windows). */
    final long[] windowCompletions;
    final Histogram latency = new Histogram();
    final Map<String, Long> errors = new TreeMap<>();
    final Map<String, Long> openFailures = new TreeMap<>();
    final Map<String, Long> closeCodes = new TreeMap<>();
    long published;
    long publishedInWindow;
    long incomplete;
    long missing;
    int outstanding;
    volatile boolean drained;

    Loop(Run run) throws IOException {
        this.run = run;
        this.windowCompletions = new long[run.options.windows()];
        this.selector = Selector.open();
        this.payload = new byte[run.options.size()];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
    }

    @Override
    public void run() {
        try {
            int seen = -1;
            long nextCheck = 0;
            while (true) {
                int phase = run.phase;
                long now = System.nanoTime();
                if (phase != seen) {
                    seen = phase;
                    onPhase(phase, now);
                }
                if (phase == Run.OPEN) {
                    startOpens(now);
                }
                if ((phase == Run.OPEN || phase == Run.CLOSE) && now - nextCheck >= 0) {
                    checkDeadlines(now);
                    nextCheck = now + CHECK_NANOS;
                }
                if (publisher != null && publisher.status == Conn.OPEN) {
                    try {
                        publisher.pump(now);
                    } catch (RuntimeException e) {
                        crashed(publisher, e);
                    }
                }
                if (phase == Run.DRAIN) {
                    drained = outstanding == 0 && (publisher == null || publisher.status != Conn.OPEN || publisher.drained());
                }
                if (phase == Run.CLOSE && active == 0) {
                    break;
                }
                selector.select(this::onKey, 10);
            }
        } catch (Throwable t) {
            run.fail(t);
        } finally {
            for (Conn c : conns) {
                c.close();
            }
            try {
                selector.close();
            } catch (IOException e) {
                error("selector_close");
            }
        }
    }

    private void onKey(SelectionKey k) {
        Conn c = (Conn) k.attachment();
        try {
            int ready = k.readyOps();
            if ((ready & SelectionKey.OP_CONNECT) != 0) {
                c.onConnectable();
            }
            if (k.isValid() && (ready & SelectionKey.OP_WRITE) != 0) {
                c.onWritable();
            }
            if (k.isValid() && (ready & SelectionKey.OP_READ) != 0) {
                c.onReadable();
            }
        } catch (RuntimeException e) {
            crashed(c, e);
        }
    }

    /** One bad connection must not end the loop: the exception is counted, and that connection closed. */
    private void crashed(Conn c, RuntimeException e) {
        error("internal_" + e.getClass().getSimpleName());
        if (c.status == Conn.CONNECTING || c.status == Conn.HANDSHAKE) {
            c.openFailed("internal_" + e.getClass().getSimpleName());
        } else {
            c.close();
        }
    }

    private void onPhase(int phase, long now) {
        if (phase == Run.RUN) {
            for (Conn c : conns) {
                if (c.status == Conn.OPEN) {
                    try {
                        c.onRun(now);
                    } catch (RuntimeException e) {
                        crashed(c, e);
                    }
                }
            }
        } else if (phase == Run.CLOSE) {
            if (publisher != null) {
                publisher.endPublishing();
            }
            for (Conn c : conns) {
                if (c.status == Conn.OPEN) {
                    try {
                        c.startClose(now);
                    } catch (RuntimeException e) {
                        crashed(c, e);
                    }
                } else if (c.status != Conn.CLOSING) {
                    c.close();
                }
            }
        }
    }

    private void startOpens(long now) {
        while (nextToOpen < conns.size() && run.takeOpenSlot()) {
            active++;
            conns.get(nextToOpen++).start(now);
        }
    }

    private void checkDeadlines(long now) {
        for (Conn c : conns) {
            if (now - c.deadline < 0) {
                continue;
            }
            switch (c.status) {
                case Conn.CONNECTING, Conn.HANDSHAKE -> c.openFailed("timeout");
                case Conn.CLOSING -> {
                    closeCode("timeout");
                    c.close();
                }
                default -> {
                }
            }
        }
    }

    void wakeup() {
        selector.wakeup();
    }

    /** The write buffer, cleared, with room for {@code capacity} bytes. */
    ByteBuffer writeBuffer(int capacity) {
        if (writeArray.length < capacity) {
            writeArray = new byte[capacity];
            writeBuffer = ByteBuffer.wrap(writeArray);
        }
        writeBuffer.clear();
        return writeBuffer;
    }

    /**
     * A masked client frame (FIN set) into the write buffer: {@code src[0, len)}, its first
     * {@link Tracker#SEQ_WIDTH} bytes replaced by {@code seq} when it is not negative. Returns its length.
     */
    int frame(int opcode, byte[] src, int len, long seq) {
        writeBuffer(len + 14);
        byte[] a = writeArray;
        int p = 0;
        a[p++] = (byte) (0x80 | opcode);
        if (len < 126) {
            a[p++] = (byte) (0x80 | len);
        } else if (len < 65536) {
            a[p++] = (byte) (0x80 | 126);
            a[p++] = (byte) (len >>> 8);
            a[p++] = (byte) len;
        } else {
            a[p++] = (byte) (0x80 | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                a[p++] = (byte) ((long) len >>> shift);
            }
        }
        // xorshift32: RFC 6455 wants a fresh, unpredictable key per frame; a proxy-poisoning attacker is not a concern here.
        int m = mask;
        m ^= m << 13;
        m ^= m >>> 17;
        m ^= m << 5;
        mask = m;
        a[p] = (byte) (m >>> 24);
        a[p + 1] = (byte) (m >>> 16);
        a[p + 2] = (byte) (m >>> 8);
        a[p + 3] = (byte) m;
        int at = p + 4;
        System.arraycopy(src, 0, a, at, len);
        if (seq >= 0) {
            digits(a, at, seq);
        }
        for (int i = 0; i < len; i++) {
            a[at + i] ^= a[p + (i & 3)];
        }
        return at + len;
    }

    /** {@code seq} as {@link Tracker#SEQ_WIDTH} decimal digits at {@code a[at]}. */
    static void digits(byte[] a, int at, long seq) {
        long v = seq;
        for (int i = Tracker.SEQ_WIDTH - 1; i >= 0; i--) {
            a[at + i] = (byte) ('0' + v % 10);
            v /= 10;
        }
    }

    void complete(long now, long latencyNanos) {
        int w = run.windowIndex(now);
        if (w >= 0) {
            completions++;
            windowCompletions[w]++;
            latency.record(latencyNanos / 1000);
        }
    }

    /** A subscriber received a message. */
    void delivered(long length, long seq, long now) {
        if (seq < 0) {
            error("bad_sequence_number");
        } else if (length != run.options.size()) {
            error("length_mismatch");
        } else {
            long latencyNanos = run.tracker.deliver(seq, now, this);
            if (latencyNanos < 0) {
                error("late_or_unknown_delivery");
            } else {
                complete(now, latencyNanos);
            }
        }
    }

    void error(String kind) {
        errors.merge(kind, 1L, Long::sum);
    }

    void openFailure(String reason) {
        openFailures.merge(reason, 1L, Long::sum);
    }

    void closeCode(String code) {
        closeCodes.merge(code, 1L, Long::sum);
    }

    /** A connection finished opening, either way. */
    void openFinished(Conn c) {
        run.openFinished();
    }

    /** A connection closed; {@code was} is the status it had. */
    void closed(Conn c, int was) {
        if (was != Conn.NEW) {
            active--;
        }
        if (was == Conn.OPEN && c.isSubscriber()) {
            run.liveSubscribers.decrementAndGet();
        }
        if (c == publisher && run.phase < Run.CLOSE) {
            error("publisher_closed");
        }
    }
}
