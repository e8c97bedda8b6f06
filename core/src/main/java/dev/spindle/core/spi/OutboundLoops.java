// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

/**
 * Which {@link OutboundLoop} the calling thread belongs to: a loop binds itself on its own thread
 * when it starts and unbinds when it ends, so code running on it (a handler, a client) finds it
 * without being handed it. Loop threads are platform threads; a virtual thread running a blocking
 * handler belongs to no loop.
 */
public final class OutboundLoops {
    private static final ThreadLocal<OutboundLoop> CURRENT = new ThreadLocal<>();

    private OutboundLoops() {
    }

    /**
     * The loop bound to the calling thread.
     *
     * @return the loop whose thread this is, or null if the calling thread is no loop's
     */
    public static OutboundLoop current() {
        return CURRENT.get();
    }

    /**
     * Binds {@code loop} to the calling thread, which must be the loop's own; called by the loop
     * when it starts.
     *
     * @param loop the loop running on the calling thread
     */
    public static void bind(OutboundLoop loop) {
        CURRENT.set(loop);
    }

    /** Unbinds the calling thread's loop; called by the loop when it ends. */
    public static void unbind() {
        CURRENT.remove();
    }
}
