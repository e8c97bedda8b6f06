package dev.spindle.iouring;

import dev.spindle.core.ServerConfig;

/**
 * io_uring-specific settings beyond {@link ServerConfig}, from {@code -Dspindle.iouring.*}
 * properties (see {@link IoUringServer}) or, in tests, given directly.
 *
 * @param sqEntries submission queue entries per ring (power of two); the CQ gets {@code cqFactor} times as many
 * @param cqFactor completion queue size as a multiple of the SQ
 * @param bufferRingEntries provided buffers per ring (power of two, at most 32768)
 * @param bufferSize bytes per provided buffer (one multishot-recv completion carries at most this)
 * @param sendChunk largest native buffer one send carries; output beyond it goes in further sends
 * @param sqpoll a kernel thread polls each SQ (burns a core per ring; off by default)
 */
record Tuning(int sqEntries, int cqFactor, int bufferRingEntries, int bufferSize, int sendChunk, boolean sqpoll) {
    static final int DEFAULT_SQ_ENTRIES = 2048;
    static final int DEFAULT_CQ_FACTOR = 8;
    static final int DEFAULT_BUFFER_RING_ENTRIES = 1024;
    static final int DEFAULT_SEND_CHUNK = 256 * 1024;

    Tuning {
        powerOfTwo("sqEntries", sqEntries, 32768);
        powerOfTwo("bufferRingEntries", bufferRingEntries, 32768);
        if (cqFactor < 1 || cqFactor > 64) {
            throw new IllegalArgumentException("cqFactor must be 1..64, got " + cqFactor);
        }
        if (bufferSize < 64 || sendChunk < 1024) {
            throw new IllegalArgumentException("bufferSize >= 64 and sendChunk >= 1024 required: " + this);
        }
    }

    private static void powerOfTwo(String name, int value, int max) {
        if (value < 1 || value > max || Integer.bitCount(value) != 1) {
            throw new IllegalArgumentException(name + " must be a power of two in 1.." + max + ", got " + value);
        }
    }

    static Tuning defaults(ServerConfig config) {
        return new Tuning(DEFAULT_SQ_ENTRIES, DEFAULT_CQ_FACTOR, DEFAULT_BUFFER_RING_ENTRIES, config.readBufferSize(),
                DEFAULT_SEND_CHUNK, false);
    }

    static Tuning fromSystemProperties(ServerConfig config) {
        Tuning d = defaults(config);
        return new Tuning(
                intProperty("spindle.iouring.sqEntries", d.sqEntries),
                intProperty("spindle.iouring.cqFactor", d.cqFactor),
                intProperty("spindle.iouring.bufferRingEntries", d.bufferRingEntries),
                intProperty("spindle.iouring.bufferSize", d.bufferSize),
                intProperty("spindle.iouring.sendChunk", d.sendChunk),
                Boolean.parseBoolean(System.getProperty("spindle.iouring.sqpoll", "false").trim()));
    }

    Tuning withBufferRing(int entries, int size) {
        return new Tuning(sqEntries, cqFactor, entries, size, sendChunk, sqpoll);
    }

    Tuning withSqpoll(boolean on) {
        return new Tuning(sqEntries, cqFactor, bufferRingEntries, bufferSize, sendChunk, on);
    }

    Tuning withSendChunk(int bytes) {
        return new Tuning(sqEntries, cqFactor, bufferRingEntries, bufferSize, bytes, sqpoll);
    }

    private static int intProperty(String name, int fallback) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid value for -D" + name + ": " + value, e);
        }
    }
}
