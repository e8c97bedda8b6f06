// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.SystemProperty;

/**
 * The io_uring server's own settings, beside the strategy-neutral {@link ServerConfig}: ring and
 * buffer sizes, and SQPOLL. Immutable; each setter-like method returns a changed copy:
 * {@code new IoUringServer(config, router, Tuning.defaults(config).sqpoll(true))}. A server made
 * without them ({@code new IoUringServer(config, router)}) reads
 * {@link #fromSystemProperties(ServerConfig)}; {@link IoUringServer}'s Javadoc has the table of
 * properties and defaults.
 *
 * @param sqEntries submission queue entries per ring: a power of two, at most 32768
 * @param cqFactor completion queue size as a multiple of the SQ: 1 to 64
 * @param bufferRingEntries provided receive buffers per ring: a power of two, at most 32768
 * @param bufferSize bytes per provided buffer (one multishot-receive completion carries at most
 *        this): at least 64
 * @param sendChunk the largest native buffer one send carries; output beyond it goes in further
 *        sends: at least 1024
 * @param sqpoll whether a kernel thread polls each ring's SQ (burns a core per ring)
 * @param sqpollIdleMillis with {@code sqpoll}: how long the kernel thread keeps polling an idle SQ
 *        before it sleeps (and the ring thread must wake it): 1 to 60000
 */
public record Tuning(int sqEntries, int cqFactor, int bufferRingEntries, int bufferSize, int sendChunk, boolean sqpoll,
        int sqpollIdleMillis) {
    static final int DEFAULT_SQ_ENTRIES = 2048;
    static final int DEFAULT_CQ_FACTOR = 8;
    static final int DEFAULT_BUFFER_RING_ENTRIES = 1024;
    static final int DEFAULT_SEND_CHUNK = 256 * 1024;
    static final int DEFAULT_SQPOLL_IDLE_MILLIS = 1000;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException if a value is out of the range its {@code @param} gives
     */
    public Tuning {
        powerOfTwo("sqEntries", sqEntries, 32768);
        powerOfTwo("bufferRingEntries", bufferRingEntries, 32768);
        if (cqFactor < 1 || cqFactor > 64) {
            throw new IllegalArgumentException("cqFactor must be 1..64, got " + cqFactor);
        }
        if (bufferSize < 64 || sendChunk < 1024) {
            throw new IllegalArgumentException("bufferSize >= 64 and sendChunk >= 1024 required, got bufferSize "
                    + bufferSize + ", sendChunk " + sendChunk);
        }
        if (sqpollIdleMillis < 1 || sqpollIdleMillis > 60_000) {
            throw new IllegalArgumentException("sqpollIdleMillis must be 1..60000, got " + sqpollIdleMillis);
        }
    }

    private static void powerOfTwo(String name, int value, int max) {
        if (value < 1 || value > max || Integer.bitCount(value) != 1) {
            throw new IllegalArgumentException(name + " must be a power of two in 1.." + max + ", got " + value);
        }
    }

    /**
     * Every setting at its default; system properties are not read.
     *
     * @param config the server's configuration: a provided buffer is its {@link ServerConfig#readBufferSize()}
     * @return the defaults {@link IoUringServer}'s Javadoc lists
     */
    public static Tuning defaults(ServerConfig config) {
        return new Tuning(DEFAULT_SQ_ENTRIES, DEFAULT_CQ_FACTOR, DEFAULT_BUFFER_RING_ENTRIES, config.readBufferSize(),
                DEFAULT_SEND_CHUNK, false, DEFAULT_SQPOLL_IDLE_MILLIS);
    }

    /**
     * The defaults overridden by any {@code spindle.iouring.*} property, read as
     * {@link ServerConfig}'s are (a blank property counts as unset).
     *
     * @param config the server's configuration, for the default buffer size
     * @return the settings the properties describe
     * @throws IllegalArgumentException if a property does not parse or is out of range
     */
    public static Tuning fromSystemProperties(ServerConfig config) {
        Tuning d = defaults(config);
        return new Tuning(
                SystemProperty.read("spindle.iouring.sqEntries", d.sqEntries, Integer::parseInt),
                SystemProperty.read("spindle.iouring.cqFactor", d.cqFactor, Integer::parseInt),
                SystemProperty.read("spindle.iouring.bufferRingEntries", d.bufferRingEntries, Integer::parseInt),
                SystemProperty.read("spindle.iouring.bufferSize", d.bufferSize, Integer::parseInt),
                SystemProperty.read("spindle.iouring.sendChunk", d.sendChunk, Integer::parseInt),
                SystemProperty.read("spindle.iouring.sqpoll", d.sqpoll, Boolean::parseBoolean),
                SystemProperty.read("spindle.iouring.sqpollIdleMillis", d.sqpollIdleMillis, Integer::parseInt));
    }

    /**
     * Submission queue entries per ring.
     *
     * @param entries a power of two, at most 32768; default 2048
     * @return a copy with this size
     */
    public Tuning sqEntries(int entries) {
        return new Tuning(entries, cqFactor, bufferRingEntries, bufferSize, sendChunk, sqpoll, sqpollIdleMillis);
    }

    /**
     * Completion queue size as a multiple of the submission queue's.
     *
     * @param factor 1 to 64; default 8
     * @return a copy with this factor
     */
    public Tuning cqFactor(int factor) {
        return new Tuning(sqEntries, factor, bufferRingEntries, bufferSize, sendChunk, sqpoll, sqpollIdleMillis);
    }

    /**
     * Provided receive buffers per ring.
     *
     * @param entries a power of two, at most 32768; default 1024
     * @return a copy with this count
     */
    public Tuning bufferRingEntries(int entries) {
        return new Tuning(sqEntries, cqFactor, entries, bufferSize, sendChunk, sqpoll, sqpollIdleMillis);
    }

    /**
     * Bytes per provided receive buffer.
     *
     * @param bytes at least 64; default the configuration's {@code readBufferSize}
     * @return a copy with this size
     */
    public Tuning bufferSize(int bytes) {
        return new Tuning(sqEntries, cqFactor, bufferRingEntries, bytes, sendChunk, sqpoll, sqpollIdleMillis);
    }

    /**
     * The largest native buffer one send carries.
     *
     * @param bytes at least 1024; default 256 KiB
     * @return a copy with this size
     */
    public Tuning sendChunk(int bytes) {
        return new Tuning(sqEntries, cqFactor, bufferRingEntries, bufferSize, bytes, sqpoll, sqpollIdleMillis);
    }

    /**
     * Whether a kernel thread polls each ring's submission queue ({@code IORING_SETUP_SQPOLL}).
     *
     * @param on true for a polling kernel thread per ring (it burns a core); default false
     * @return a copy with this setting
     */
    public Tuning sqpoll(boolean on) {
        return new Tuning(sqEntries, cqFactor, bufferRingEntries, bufferSize, sendChunk, on, sqpollIdleMillis);
    }

    /**
     * How long each ring's SQPOLL kernel thread keeps polling an idle submission queue before it
     * sleeps; the ring thread wakes it on its next submission. Shorter burns less CPU while idle,
     * longer saves the wake-up on bursty load.
     *
     * @param millis 1 to 60000; default 1000 (used only with {@link #sqpoll(boolean) sqpoll})
     * @return a copy with this idle time
     */
    public Tuning sqpollIdleMillis(int millis) {
        return new Tuning(sqEntries, cqFactor, bufferRingEntries, bufferSize, sendChunk, sqpoll, millis);
    }
}
