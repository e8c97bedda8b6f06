// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

/**
 * What a strategy does next with a {@link Connection}: every call that feeds or advances the
 * connection answers with one of these, so a strategy acts on one value instead of re-deriving
 * the connection's state from predicates.
 */
public enum Next {
    /** Read from the socket; nothing waits to be written. */
    READ(true, false),
    /** Write {@link Connection#outbound()} (or its file region); do not read now. */
    WRITE(false, true),
    /** Write what is pending and read. */
    READ_WRITE(true, true),
    /**
     * Neither: the connection waits for its wakeup (a handler, a body producer or consumer on
     * another thread) or for its next {@link Connection#tick}.
     */
    WAIT(false, false),
    /**
     * Everything is answered and written: shut down the output (once) and keep reading; what
     * arrives is dropped until the connection says {@link #CLOSE}. Closing at once could make the
     * kernel answer unread bytes with a reset that destroys the response.
     */
    LINGER(true, false),
    /** Close the socket now, then call {@link Connection#closed()}; nothing more is handed out. */
    CLOSE(false, false);

    private final boolean reads;
    private final boolean writes;

    Next(boolean reads, boolean writes) {
        this.reads = reads;
        this.writes = writes;
    }

    /**
     * Whether the strategy should read from the socket now.
     *
     * @return true for {@link #READ}, {@link #READ_WRITE} and {@link #LINGER}
     */
    public boolean reads() {
        return reads;
    }

    /**
     * Whether output waits to be written.
     *
     * @return true for {@link #WRITE} and {@link #READ_WRITE}
     */
    public boolean writes() {
        return writes;
    }

    /**
     * The answer of a connection that is still open and not lingering.
     *
     * @param read whether a read is useful now
     * @param write whether output is pending
     * @return {@link #READ}, {@link #WRITE}, {@link #READ_WRITE} or {@link #WAIT}
     */
    public static Next of(boolean read, boolean write) {
        return read ? (write ? READ_WRITE : READ) : (write ? WRITE : WAIT);
    }
}
