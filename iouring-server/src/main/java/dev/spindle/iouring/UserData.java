// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

/**
 * The 64-bit {@code user_data} of every submission: {@code op} (8 bits) | connection slot (24 bits)
 * | generation (32 bits). A slot is reused only after all its operations completed; the
 * generation still lets a completion that arrives for an earlier occupant be recognised and
 * ignored. {@code -1} is liburing's own internal timeout and never one of ours.
 */
final class UserData {
    static final int ACCEPT = 1;
    static final int EVENTFD = 2;
    static final int RECV = 3;
    static final int SEND = 4;
    /** An {@code IORING_OP_ASYNC_CANCEL}; its completion carries nothing to act on. */
    static final int CANCEL = 5;
    /** An outbound socket's {@code IORING_OP_CONNECT}. */
    static final int CONNECT = 6;

    static final int MAX_SLOTS = 1 << 24;
    /** The {@code user_data} of every cancel the server submits. */
    static final long CANCEL_DATA = encode(CANCEL, 0, 0);
    /** {@code LIBURING_UDATA_TIMEOUT}: liburing's timeout SQE on kernels without {@code IORING_FEAT_EXT_ARG}. */
    static final long LIBURING_TIMEOUT = -1L;

    private UserData() {
    }

    static long encode(int op, int slot, int generation) {
        return ((long) op << 56) | ((long) slot << 32) | (generation & 0xFFFF_FFFFL);
    }

    static int op(long userData) {
        return (int) (userData >>> 56);
    }

    static int slot(long userData) {
        return (int) (userData >>> 32) & (MAX_SLOTS - 1);
    }

    static int generation(long userData) {
        return (int) userData;
    }

    static String toString(long userData) {
        return "op " + op(userData) + " slot " + slot(userData) + " gen " + generation(userData);
    }
}
