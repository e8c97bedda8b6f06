// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.Libc;
import dev.spindle.iouring.ffi.io_uring;
import dev.spindle.iouring.ffi.io_uring_buf_reg;
import dev.spindle.iouring.ffi.io_uring_params;
import dev.spindle.iouring.ffi.io_uring_probe;
import dev.spindle.iouring.ffi.io_uring_probe_op;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Whether this process can use io_uring the way {@link IoUringServer} does, and if not, why:
 * Linux; {@code kernel.io_uring_disabled} not forbidding it; {@code liburing.so.2} loadable; a
 * probe ring with {@code SINGLE_ISSUER | DEFER_TASKRUN} (Linux 6.1+) can be created, supports
 * the operations the server submits, and accepts a provided-buffer ring. Checked once.
 */
@SuppressWarnings("restricted") // FFM: the probe returned by liburing
public final class IoUring {
    private static final String CAUSE = probe();

    private IoUring() {
    }

    /**
     * Whether this kernel and the installed liburing let the io_uring server run.
     *
     * @return true when available; {@link #unavailabilityCause()} says why not otherwise
     */
    public static boolean isAvailable() {
        return CAUSE == null;
    }

    /**
     * Why io_uring cannot be used here.
     *
     * @return one line with the reason, or null when {@link #isAvailable()}
     */
    public static String unavailabilityCause() {
        return CAUSE;
    }

    /** Throws, with the cause as its message, unless {@link #isAvailable()}. */
    static void ensureAvailable() throws IOException {
        if (CAUSE != null) {
            throw new IOException("io_uring is not available: " + CAUSE);
        }
    }

    private static String probe() {
        String os = System.getProperty("os.name", "");
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
            return "io_uring exists only on Linux, this is " + os;
        }
        String disabled = readSysctl();
        if ("2".equals(disabled)) {
            return "the kernel disables io_uring for every process (sysctl kernel.io_uring_disabled = 2)";
        }
        try {
            LibUring.io_uring_queue_init_params$address();
        } catch (Throwable t) {
            return "cannot load liburing.so.2 (install liburing2, liburing 2.2 or later): " + rootMessage(t);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ring = io_uring.allocate(arena).fill((byte) 0);
            MemorySegment params = io_uring_params.allocate(arena).fill((byte) 0);
            io_uring_params.flags(params, LibUring.IORING_SETUP_SINGLE_ISSUER() | LibUring.IORING_SETUP_DEFER_TASKRUN());
            int ret = LibUring.io_uring_queue_init_params(8, ring, params);
            if (ret < 0) {
                return "io_uring_setup failed: " + Errno.describe(-ret) + hint(-ret, disabled);
            }
            try {
                String missing = missingOps(ring);
                if (missing != null) {
                    return missing;
                }
                MemorySegment bufRing = arena.allocate(8 * 16, 4096).fill((byte) 0);
                MemorySegment reg = io_uring_buf_reg.allocate(arena).fill((byte) 0);
                io_uring_buf_reg.ring_addr(reg, bufRing.address());
                io_uring_buf_reg.ring_entries(reg, 8);
                io_uring_buf_reg.bgid(reg, (short) 0);
                ret = LibUring.io_uring_register_buf_ring(ring, reg, 0);
                if (ret < 0) {
                    return "provided-buffer rings are not supported (Linux 5.19+ needed): " + Errno.describe(-ret);
                }
                LibUring.io_uring_unregister_buf_ring(ring, 0);
            } finally {
                LibUring.io_uring_queue_exit(ring);
            }
        } catch (Throwable t) {
            return "io_uring probe failed: " + rootMessage(t);
        }
        return null;
    }

    private static String missingOps(MemorySegment ring) {
        MemorySegment probe = LibUring.io_uring_get_probe_ring(ring);
        if (probe.address() == 0) {
            return null; // no probe support: the ring works; let the operations speak for themselves
        }
        try {
            // liburing allocates room for 256 ops after the header
            MemorySegment p = probe.reinterpret(io_uring_probe.sizeof() + 256 * io_uring_probe_op.sizeof());
            int opsLen = Byte.toUnsignedInt(io_uring_probe.ops_len(p));
            int[] needed = {LibUring.IORING_OP_ACCEPT(), LibUring.IORING_OP_CONNECT(), LibUring.IORING_OP_RECV(),
                    LibUring.IORING_OP_SEND(), LibUring.IORING_OP_READ(), LibUring.IORING_OP_ASYNC_CANCEL()};
            for (int op : needed) {
                MemorySegment entry = p.asSlice(io_uring_probe.ops$offset() + op * io_uring_probe_op.sizeof(), io_uring_probe_op.sizeof());
                boolean supported = op < opsLen
                        && (Short.toUnsignedInt(io_uring_probe_op.flags(entry)) & LibUring.IO_URING_OP_SUPPORTED()) != 0;
                if (!supported) {
                    return "the kernel's io_uring lacks operation " + op + " (IORING_OP_*); a newer kernel is needed";
                }
            }
            return null;
        } finally {
            LibUring.io_uring_free_probe(probe);
        }
    }

    private static String hint(int errno, String disabled) {
        if (errno == Libc.EPERM()) {
            return "1".equals(disabled)
                    ? " (sysctl kernel.io_uring_disabled = 1 allows it only to root and the io_uring group)"
                    : " (forbidden here, e.g. by a seccomp profile of the container)";
        }
        if (errno == Libc.ENOSYS()) {
            return " (the kernel has no io_uring, or a seccomp profile hides it)";
        }
        if (errno == Libc.EINVAL()) {
            return " (the kernel is too old for SINGLE_ISSUER/DEFER_TASKRUN: Linux 6.1+ needed)";
        }
        return "";
    }

    private static String readSysctl() {
        Path path = Path.of("/proc/sys/kernel/io_uring_disabled");
        try {
            return Files.isReadable(path) ? Files.readString(path, StandardCharsets.US_ASCII).trim() : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return (message == null ? root.getClass().getSimpleName() : message).replace('\n', ' ');
    }
}
