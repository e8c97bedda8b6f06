// Hand-written in the shape jextract generates (jextract cannot be installed on our machines);
// regenerate with scripts/jextract-liburing.sh where it is. Only what Spindle uses is bound.
// The static inline helpers of liburing.h cannot be bound (the library does not export them);
// their Java versions are in LibUringInline, which a regeneration leaves alone.
package dev.spindle.iouring.ffi;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The functions and constants of {@code <liburing.h>} (liburing 2.3, {@code liburing.so.2}) and
 * {@code <liburing/io_uring.h>} that Spindle uses. Functions return what liburing returns:
 * {@code -errno} on failure for the int-returning ones.
 */
@SuppressWarnings({"unused", "checkstyle:MethodName", "restricted"})
public class LibUring {

    LibUring() {
        // Should not be called directly
    }

    /** The library's soname; Debian's {@code liburing2} package ships it. */
    public static final String LIBRARY = "liburing.so.2";

    static final Arena LIBRARY_ARENA = Arena.global();

    static final SymbolLookup SYMBOL_LOOKUP = SymbolLookup.libraryLookup(LIBRARY, LIBRARY_ARENA);

    public static final ValueLayout.OfBoolean C_BOOL = ValueLayout.JAVA_BOOLEAN;
    public static final ValueLayout.OfByte C_CHAR = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort C_SHORT = ValueLayout.JAVA_SHORT;
    public static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfLong C_LONG_LONG = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfFloat C_FLOAT = ValueLayout.JAVA_FLOAT;
    public static final ValueLayout.OfDouble C_DOUBLE = ValueLayout.JAVA_DOUBLE;
    public static final AddressLayout C_POINTER = ValueLayout.ADDRESS
            .withTargetLayout(MemoryLayout.sequenceLayout(java.lang.Long.MAX_VALUE, ValueLayout.JAVA_BYTE));
    public static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;

    static MemorySegment findOrThrow(String symbol) {
        return SYMBOL_LOOKUP.find(symbol)
                .orElseThrow(() -> new UnsatisfiedLinkError("unresolved symbol: " + symbol + " in " + LIBRARY));
    }

    static MethodHandle downcall(String symbol, FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(findOrThrow(symbol), descriptor);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new AssertionError("should not reach here", t);
    }

    // io_uring_setup() flags

    private static final int IORING_SETUP_IOPOLL = 1 << 0;
    private static final int IORING_SETUP_SQPOLL = 1 << 1;
    private static final int IORING_SETUP_SQ_AFF = 1 << 2;
    private static final int IORING_SETUP_CQSIZE = 1 << 3;
    private static final int IORING_SETUP_CLAMP = 1 << 4;
    private static final int IORING_SETUP_ATTACH_WQ = 1 << 5;
    private static final int IORING_SETUP_R_DISABLED = 1 << 6;
    private static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;
    private static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;
    private static final int IORING_SETUP_TASKRUN_FLAG = 1 << 9;
    private static final int IORING_SETUP_SQE128 = 1 << 10;
    private static final int IORING_SETUP_CQE32 = 1 << 11;
    private static final int IORING_SETUP_SINGLE_ISSUER = 1 << 12;
    private static final int IORING_SETUP_DEFER_TASKRUN = 1 << 13;

    /** {@snippet lang=c : #define IORING_SETUP_IOPOLL (1U << 0) } */
    public static int IORING_SETUP_IOPOLL() { return IORING_SETUP_IOPOLL; }
    /** {@snippet lang=c : #define IORING_SETUP_SQPOLL (1U << 1) } */
    public static int IORING_SETUP_SQPOLL() { return IORING_SETUP_SQPOLL; }
    /** {@snippet lang=c : #define IORING_SETUP_SQ_AFF (1U << 2) } */
    public static int IORING_SETUP_SQ_AFF() { return IORING_SETUP_SQ_AFF; }
    /** {@snippet lang=c : #define IORING_SETUP_CQSIZE (1U << 3) } */
    public static int IORING_SETUP_CQSIZE() { return IORING_SETUP_CQSIZE; }
    /** {@snippet lang=c : #define IORING_SETUP_CLAMP (1U << 4) } */
    public static int IORING_SETUP_CLAMP() { return IORING_SETUP_CLAMP; }
    /** {@snippet lang=c : #define IORING_SETUP_ATTACH_WQ (1U << 5) } */
    public static int IORING_SETUP_ATTACH_WQ() { return IORING_SETUP_ATTACH_WQ; }
    /** {@snippet lang=c : #define IORING_SETUP_R_DISABLED (1U << 6) } */
    public static int IORING_SETUP_R_DISABLED() { return IORING_SETUP_R_DISABLED; }
    /** {@snippet lang=c : #define IORING_SETUP_SUBMIT_ALL (1U << 7) } */
    public static int IORING_SETUP_SUBMIT_ALL() { return IORING_SETUP_SUBMIT_ALL; }
    /** {@snippet lang=c : #define IORING_SETUP_COOP_TASKRUN (1U << 8) } */
    public static int IORING_SETUP_COOP_TASKRUN() { return IORING_SETUP_COOP_TASKRUN; }
    /** {@snippet lang=c : #define IORING_SETUP_TASKRUN_FLAG (1U << 9) } */
    public static int IORING_SETUP_TASKRUN_FLAG() { return IORING_SETUP_TASKRUN_FLAG; }
    /** {@snippet lang=c : #define IORING_SETUP_SQE128 (1U << 10) } */
    public static int IORING_SETUP_SQE128() { return IORING_SETUP_SQE128; }
    /** {@snippet lang=c : #define IORING_SETUP_CQE32 (1U << 11) } */
    public static int IORING_SETUP_CQE32() { return IORING_SETUP_CQE32; }
    /** {@snippet lang=c : #define IORING_SETUP_SINGLE_ISSUER (1U << 12) } */
    public static int IORING_SETUP_SINGLE_ISSUER() { return IORING_SETUP_SINGLE_ISSUER; }
    /** {@snippet lang=c : #define IORING_SETUP_DEFER_TASKRUN (1U << 13) } */
    public static int IORING_SETUP_DEFER_TASKRUN() { return IORING_SETUP_DEFER_TASKRUN; }


    private static final int IORING_OP_NOP = 0;
    private static final int IORING_OP_POLL_ADD = 6;
    private static final int IORING_OP_TIMEOUT = 11;
    private static final int IORING_OP_ACCEPT = 13;
    private static final int IORING_OP_ASYNC_CANCEL = 14;
    private static final int IORING_OP_CLOSE = 19;
    private static final int IORING_OP_READ = 22;
    private static final int IORING_OP_WRITE = 23;
    private static final int IORING_OP_SEND = 26;
    private static final int IORING_OP_RECV = 27;
    private static final int IORING_OP_SHUTDOWN = 34;
    private static final int IORING_OP_SEND_ZC = 47;
    private static final int IORING_OP_LAST = 49;

    /** {@snippet lang=c : IORING_OP_NOP = 0 } */
    public static int IORING_OP_NOP() { return IORING_OP_NOP; }
    /** {@snippet lang=c : IORING_OP_POLL_ADD = 6 } */
    public static int IORING_OP_POLL_ADD() { return IORING_OP_POLL_ADD; }
    /** {@snippet lang=c : IORING_OP_TIMEOUT = 11 } */
    public static int IORING_OP_TIMEOUT() { return IORING_OP_TIMEOUT; }
    /** {@snippet lang=c : IORING_OP_ACCEPT = 13 } */
    public static int IORING_OP_ACCEPT() { return IORING_OP_ACCEPT; }
    /** {@snippet lang=c : IORING_OP_ASYNC_CANCEL = 14 } */
    public static int IORING_OP_ASYNC_CANCEL() { return IORING_OP_ASYNC_CANCEL; }
    /** {@snippet lang=c : IORING_OP_CLOSE = 19 } */
    public static int IORING_OP_CLOSE() { return IORING_OP_CLOSE; }
    /** {@snippet lang=c : IORING_OP_READ = 22 } */
    public static int IORING_OP_READ() { return IORING_OP_READ; }
    /** {@snippet lang=c : IORING_OP_WRITE = 23 } */
    public static int IORING_OP_WRITE() { return IORING_OP_WRITE; }
    /** {@snippet lang=c : IORING_OP_SEND = 26 } */
    public static int IORING_OP_SEND() { return IORING_OP_SEND; }
    /** {@snippet lang=c : IORING_OP_RECV = 27 } */
    public static int IORING_OP_RECV() { return IORING_OP_RECV; }
    /** {@snippet lang=c : IORING_OP_SHUTDOWN = 34 } */
    public static int IORING_OP_SHUTDOWN() { return IORING_OP_SHUTDOWN; }
    /** {@snippet lang=c : IORING_OP_SEND_ZC = 47 } */
    public static int IORING_OP_SEND_ZC() { return IORING_OP_SEND_ZC; }
    /** {@snippet lang=c : IORING_OP_LAST = 49 } */
    public static int IORING_OP_LAST() { return IORING_OP_LAST; }


    private static final int IOSQE_FIXED_FILE = 1 << 0;
    private static final int IOSQE_IO_DRAIN = 1 << 1;
    private static final int IOSQE_IO_LINK = 1 << 2;
    private static final int IOSQE_IO_HARDLINK = 1 << 3;
    private static final int IOSQE_ASYNC = 1 << 4;
    private static final int IOSQE_BUFFER_SELECT = 1 << 5;
    private static final int IOSQE_CQE_SKIP_SUCCESS = 1 << 6;
    private static final int IORING_RECVSEND_POLL_FIRST = 1 << 0;
    private static final int IORING_RECV_MULTISHOT = 1 << 1;
    private static final int IORING_RECVSEND_FIXED_BUF = 1 << 2;
    private static final int IORING_ACCEPT_MULTISHOT = 1 << 0;
    private static final int IORING_ASYNC_CANCEL_ALL = 1 << 0;
    private static final int IORING_ASYNC_CANCEL_FD = 1 << 1;
    private static final int IORING_ASYNC_CANCEL_ANY = 1 << 2;
    private static final int IORING_TIMEOUT_ABS = 1 << 0;
    private static final int IORING_TIMEOUT_ETIME_SUCCESS = 1 << 5;

    /** {@snippet lang=c : #define IOSQE_FIXED_FILE (1U << IOSQE_FIXED_FILE_BIT) } */
    public static int IOSQE_FIXED_FILE() { return IOSQE_FIXED_FILE; }
    /** {@snippet lang=c : #define IOSQE_IO_DRAIN (1U << IOSQE_IO_DRAIN_BIT) } */
    public static int IOSQE_IO_DRAIN() { return IOSQE_IO_DRAIN; }
    /** {@snippet lang=c : #define IOSQE_IO_LINK (1U << IOSQE_IO_LINK_BIT) } */
    public static int IOSQE_IO_LINK() { return IOSQE_IO_LINK; }
    /** {@snippet lang=c : #define IOSQE_IO_HARDLINK (1U << IOSQE_IO_HARDLINK_BIT) } */
    public static int IOSQE_IO_HARDLINK() { return IOSQE_IO_HARDLINK; }
    /** {@snippet lang=c : #define IOSQE_ASYNC (1U << IOSQE_ASYNC_BIT) } */
    public static int IOSQE_ASYNC() { return IOSQE_ASYNC; }
    /** {@snippet lang=c : #define IOSQE_BUFFER_SELECT (1U << IOSQE_BUFFER_SELECT_BIT) } */
    public static int IOSQE_BUFFER_SELECT() { return IOSQE_BUFFER_SELECT; }
    /** {@snippet lang=c : #define IOSQE_CQE_SKIP_SUCCESS (1U << IOSQE_CQE_SKIP_SUCCESS_BIT) } */
    public static int IOSQE_CQE_SKIP_SUCCESS() { return IOSQE_CQE_SKIP_SUCCESS; }
    /** {@snippet lang=c : #define IORING_RECVSEND_POLL_FIRST (1U << 0) } */
    public static int IORING_RECVSEND_POLL_FIRST() { return IORING_RECVSEND_POLL_FIRST; }
    /** {@snippet lang=c : #define IORING_RECV_MULTISHOT (1U << 1) } */
    public static int IORING_RECV_MULTISHOT() { return IORING_RECV_MULTISHOT; }
    /** {@snippet lang=c : #define IORING_RECVSEND_FIXED_BUF (1U << 2) } */
    public static int IORING_RECVSEND_FIXED_BUF() { return IORING_RECVSEND_FIXED_BUF; }
    /** {@snippet lang=c : #define IORING_ACCEPT_MULTISHOT (1U << 0) } */
    public static int IORING_ACCEPT_MULTISHOT() { return IORING_ACCEPT_MULTISHOT; }
    /** {@snippet lang=c : #define IORING_ASYNC_CANCEL_ALL (1U << 0) } */
    public static int IORING_ASYNC_CANCEL_ALL() { return IORING_ASYNC_CANCEL_ALL; }
    /** {@snippet lang=c : #define IORING_ASYNC_CANCEL_FD (1U << 1) } */
    public static int IORING_ASYNC_CANCEL_FD() { return IORING_ASYNC_CANCEL_FD; }
    /** {@snippet lang=c : #define IORING_ASYNC_CANCEL_ANY (1U << 2) } */
    public static int IORING_ASYNC_CANCEL_ANY() { return IORING_ASYNC_CANCEL_ANY; }
    /** {@snippet lang=c : #define IORING_TIMEOUT_ABS (1U << 0) } */
    public static int IORING_TIMEOUT_ABS() { return IORING_TIMEOUT_ABS; }
    /** {@snippet lang=c : #define IORING_TIMEOUT_ETIME_SUCCESS (1U << 5) } */
    public static int IORING_TIMEOUT_ETIME_SUCCESS() { return IORING_TIMEOUT_ETIME_SUCCESS; }


    private static final int IORING_CQE_F_BUFFER = 1 << 0;
    private static final int IORING_CQE_F_MORE = 1 << 1;
    private static final int IORING_CQE_F_SOCK_NONEMPTY = 1 << 2;
    private static final int IORING_CQE_F_NOTIF = 1 << 3;
    private static final int IORING_CQE_BUFFER_SHIFT = 16;

    /** {@snippet lang=c : #define IORING_CQE_F_BUFFER (1U << 0) } */
    public static int IORING_CQE_F_BUFFER() { return IORING_CQE_F_BUFFER; }
    /** {@snippet lang=c : #define IORING_CQE_F_MORE (1U << 1) } */
    public static int IORING_CQE_F_MORE() { return IORING_CQE_F_MORE; }
    /** {@snippet lang=c : #define IORING_CQE_F_SOCK_NONEMPTY (1U << 2) } */
    public static int IORING_CQE_F_SOCK_NONEMPTY() { return IORING_CQE_F_SOCK_NONEMPTY; }
    /** {@snippet lang=c : #define IORING_CQE_F_NOTIF (1U << 3) } */
    public static int IORING_CQE_F_NOTIF() { return IORING_CQE_F_NOTIF; }
    /** {@snippet lang=c : IORING_CQE_BUFFER_SHIFT = 16 } */
    public static int IORING_CQE_BUFFER_SHIFT() { return IORING_CQE_BUFFER_SHIFT; }


    private static final int IORING_SQ_NEED_WAKEUP = 1 << 0;
    private static final int IORING_SQ_CQ_OVERFLOW = 1 << 1;
    private static final int IORING_SQ_TASKRUN = 1 << 2;
    private static final int IORING_ENTER_GETEVENTS = 1 << 0;
    private static final int IORING_ENTER_SQ_WAKEUP = 1 << 1;
    private static final int IORING_ENTER_EXT_ARG = 1 << 3;
    private static final int IORING_ENTER_REGISTERED_RING = 1 << 4;
    private static final int IORING_FEAT_SINGLE_MMAP = 1 << 0;
    private static final int IORING_FEAT_NODROP = 1 << 1;
    private static final int IORING_FEAT_FAST_POLL = 1 << 5;
    private static final int IORING_FEAT_EXT_ARG = 1 << 8;
    private static final int IORING_FEAT_CQE_SKIP = 1 << 11;
    private static final int IORING_REGISTER_RING_FDS = 20;
    private static final int IORING_REGISTER_PBUF_RING = 22;
    private static final int IORING_UNREGISTER_PBUF_RING = 23;
    private static final int IO_URING_OP_SUPPORTED = 1 << 0;

    /** {@snippet lang=c : #define IORING_SQ_NEED_WAKEUP (1U << 0) } */
    public static int IORING_SQ_NEED_WAKEUP() { return IORING_SQ_NEED_WAKEUP; }
    /** {@snippet lang=c : #define IORING_SQ_CQ_OVERFLOW (1U << 1) } */
    public static int IORING_SQ_CQ_OVERFLOW() { return IORING_SQ_CQ_OVERFLOW; }
    /** {@snippet lang=c : #define IORING_SQ_TASKRUN (1U << 2) } */
    public static int IORING_SQ_TASKRUN() { return IORING_SQ_TASKRUN; }
    /** {@snippet lang=c : #define IORING_ENTER_GETEVENTS (1U << 0) } */
    public static int IORING_ENTER_GETEVENTS() { return IORING_ENTER_GETEVENTS; }
    /** {@snippet lang=c : #define IORING_ENTER_SQ_WAKEUP (1U << 1) } */
    public static int IORING_ENTER_SQ_WAKEUP() { return IORING_ENTER_SQ_WAKEUP; }
    /** {@snippet lang=c : #define IORING_ENTER_EXT_ARG (1U << 3) } */
    public static int IORING_ENTER_EXT_ARG() { return IORING_ENTER_EXT_ARG; }
    /** {@snippet lang=c : #define IORING_ENTER_REGISTERED_RING (1U << 4) } */
    public static int IORING_ENTER_REGISTERED_RING() { return IORING_ENTER_REGISTERED_RING; }
    /** {@snippet lang=c : #define IORING_FEAT_SINGLE_MMAP (1U << 0) } */
    public static int IORING_FEAT_SINGLE_MMAP() { return IORING_FEAT_SINGLE_MMAP; }
    /** {@snippet lang=c : #define IORING_FEAT_NODROP (1U << 1) } */
    public static int IORING_FEAT_NODROP() { return IORING_FEAT_NODROP; }
    /** {@snippet lang=c : #define IORING_FEAT_FAST_POLL (1U << 5) } */
    public static int IORING_FEAT_FAST_POLL() { return IORING_FEAT_FAST_POLL; }
    /** {@snippet lang=c : #define IORING_FEAT_EXT_ARG (1U << 8) } */
    public static int IORING_FEAT_EXT_ARG() { return IORING_FEAT_EXT_ARG; }
    /** {@snippet lang=c : #define IORING_FEAT_CQE_SKIP (1U << 11) } */
    public static int IORING_FEAT_CQE_SKIP() { return IORING_FEAT_CQE_SKIP; }
    /** {@snippet lang=c : IORING_REGISTER_RING_FDS = 20 } */
    public static int IORING_REGISTER_RING_FDS() { return IORING_REGISTER_RING_FDS; }
    /** {@snippet lang=c : IORING_REGISTER_PBUF_RING = 22 } */
    public static int IORING_REGISTER_PBUF_RING() { return IORING_REGISTER_PBUF_RING; }
    /** {@snippet lang=c : IORING_UNREGISTER_PBUF_RING = 23 } */
    public static int IORING_UNREGISTER_PBUF_RING() { return IORING_UNREGISTER_PBUF_RING; }
    /** {@snippet lang=c : #define IO_URING_OP_SUPPORTED (1U << 0) } */
    public static int IO_URING_OP_SUPPORTED() { return IO_URING_OP_SUPPORTED; }


    private static class io_uring_queue_init_params {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_POINTER, C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_queue_init_params");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_queue_init_params$descriptor() { return io_uring_queue_init_params.DESC; }
    public static MethodHandle io_uring_queue_init_params$handle() { return io_uring_queue_init_params.HANDLE; }
    public static MemorySegment io_uring_queue_init_params$address() { return io_uring_queue_init_params.ADDR; }

    /** {@snippet lang=c : int io_uring_queue_init_params(unsigned entries, struct io_uring *ring, struct io_uring_params *p) } */
    public static int io_uring_queue_init_params(int entries, MemorySegment ring, MemorySegment p) {
        try {
            return (int) io_uring_queue_init_params.HANDLE.invokeExact(entries, ring, p);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_queue_exit {
        public static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_queue_exit");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_queue_exit$descriptor() { return io_uring_queue_exit.DESC; }
    public static MethodHandle io_uring_queue_exit$handle() { return io_uring_queue_exit.HANDLE; }
    public static MemorySegment io_uring_queue_exit$address() { return io_uring_queue_exit.ADDR; }

    /** {@snippet lang=c : void io_uring_queue_exit(struct io_uring *ring) } */
    public static void io_uring_queue_exit(MemorySegment ring) {
        try {
            io_uring_queue_exit.HANDLE.invokeExact(ring);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_get_sqe {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_get_sqe");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_get_sqe$descriptor() { return io_uring_get_sqe.DESC; }
    public static MethodHandle io_uring_get_sqe$handle() { return io_uring_get_sqe.HANDLE; }
    public static MemorySegment io_uring_get_sqe$address() { return io_uring_get_sqe.ADDR; }

    /**
     * {@snippet lang=c : struct io_uring_sqe *io_uring_get_sqe(struct io_uring *ring) }
     * (Exported by 2.3 as well as inline; the server uses {@link LibUringInline#io_uring_get_sqe}.)
     */
    public static MemorySegment io_uring_get_sqe(MemorySegment ring) {
        try {
            return (MemorySegment) io_uring_get_sqe.HANDLE.invokeExact(ring);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_submit {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_submit");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_submit$descriptor() { return io_uring_submit.DESC; }
    public static MethodHandle io_uring_submit$handle() { return io_uring_submit.HANDLE; }
    public static MemorySegment io_uring_submit$address() { return io_uring_submit.ADDR; }

    /** {@snippet lang=c : int io_uring_submit(struct io_uring *ring) } */
    public static int io_uring_submit(MemorySegment ring) {
        try {
            return (int) io_uring_submit.HANDLE.invokeExact(ring);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_submit_and_wait {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        public static final MemorySegment ADDR = findOrThrow("io_uring_submit_and_wait");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_submit_and_wait$descriptor() { return io_uring_submit_and_wait.DESC; }
    public static MethodHandle io_uring_submit_and_wait$handle() { return io_uring_submit_and_wait.HANDLE; }
    public static MemorySegment io_uring_submit_and_wait$address() { return io_uring_submit_and_wait.ADDR; }

    /** {@snippet lang=c : int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr) } */
    public static int io_uring_submit_and_wait(MemorySegment ring, int wait_nr) {
        try {
            return (int) io_uring_submit_and_wait.HANDLE.invokeExact(ring, wait_nr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_submit_and_wait_timeout {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT, C_POINTER, C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_submit_and_wait_timeout");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_submit_and_wait_timeout$descriptor() { return io_uring_submit_and_wait_timeout.DESC; }
    public static MethodHandle io_uring_submit_and_wait_timeout$handle() { return io_uring_submit_and_wait_timeout.HANDLE; }
    public static MemorySegment io_uring_submit_and_wait_timeout$address() { return io_uring_submit_and_wait_timeout.ADDR; }

    /**
     * {@snippet lang=c :
     * int io_uring_submit_and_wait_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
     *                                      unsigned wait_nr, struct __kernel_timespec *ts, sigset_t *sigmask)
     * }
     */
    public static int io_uring_submit_and_wait_timeout(MemorySegment ring, MemorySegment cqe_ptr, int wait_nr, MemorySegment ts,
            MemorySegment sigmask) {
        try {
            return (int) io_uring_submit_and_wait_timeout.HANDLE.invokeExact(ring, cqe_ptr, wait_nr, ts, sigmask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class __io_uring_get_cqe {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT, C_INT, C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("__io_uring_get_cqe");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor __io_uring_get_cqe$descriptor() { return __io_uring_get_cqe.DESC; }
    public static MethodHandle __io_uring_get_cqe$handle() { return __io_uring_get_cqe.HANDLE; }
    public static MemorySegment __io_uring_get_cqe$address() { return __io_uring_get_cqe.ADDR; }

    /**
     * {@snippet lang=c :
     * int __io_uring_get_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr, unsigned submit,
     *                        unsigned wait_nr, sigset_t *sigmask)
     * }
     */
    public static int __io_uring_get_cqe(MemorySegment ring, MemorySegment cqe_ptr, int submit, int wait_nr, MemorySegment sigmask) {
        try {
            return (int) __io_uring_get_cqe.HANDLE.invokeExact(ring, cqe_ptr, submit, wait_nr, sigmask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_peek_batch_cqe {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT);
        public static final MemorySegment ADDR = findOrThrow("io_uring_peek_batch_cqe");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_peek_batch_cqe$descriptor() { return io_uring_peek_batch_cqe.DESC; }
    public static MethodHandle io_uring_peek_batch_cqe$handle() { return io_uring_peek_batch_cqe.HANDLE; }
    public static MemorySegment io_uring_peek_batch_cqe$address() { return io_uring_peek_batch_cqe.ADDR; }

    /** {@snippet lang=c : unsigned io_uring_peek_batch_cqe(struct io_uring *ring, struct io_uring_cqe **cqes, unsigned count) } */
    public static int io_uring_peek_batch_cqe(MemorySegment ring, MemorySegment cqes, int count) {
        try {
            return (int) io_uring_peek_batch_cqe.HANDLE.invokeExact(ring, cqes, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_register_buf_ring {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT);
        public static final MemorySegment ADDR = findOrThrow("io_uring_register_buf_ring");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_register_buf_ring$descriptor() { return io_uring_register_buf_ring.DESC; }
    public static MethodHandle io_uring_register_buf_ring$handle() { return io_uring_register_buf_ring.HANDLE; }
    public static MemorySegment io_uring_register_buf_ring$address() { return io_uring_register_buf_ring.ADDR; }

    /** {@snippet lang=c : int io_uring_register_buf_ring(struct io_uring *ring, struct io_uring_buf_reg *reg, unsigned int flags) } */
    public static int io_uring_register_buf_ring(MemorySegment ring, MemorySegment reg, int flags) {
        try {
            return (int) io_uring_register_buf_ring.HANDLE.invokeExact(ring, reg, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_unregister_buf_ring {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        public static final MemorySegment ADDR = findOrThrow("io_uring_unregister_buf_ring");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_unregister_buf_ring$descriptor() { return io_uring_unregister_buf_ring.DESC; }
    public static MethodHandle io_uring_unregister_buf_ring$handle() { return io_uring_unregister_buf_ring.HANDLE; }
    public static MemorySegment io_uring_unregister_buf_ring$address() { return io_uring_unregister_buf_ring.ADDR; }

    /** {@snippet lang=c : int io_uring_unregister_buf_ring(struct io_uring *ring, int bgid) } */
    public static int io_uring_unregister_buf_ring(MemorySegment ring, int bgid) {
        try {
            return (int) io_uring_unregister_buf_ring.HANDLE.invokeExact(ring, bgid);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_register_ring_fd {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_register_ring_fd");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_register_ring_fd$descriptor() { return io_uring_register_ring_fd.DESC; }
    public static MethodHandle io_uring_register_ring_fd$handle() { return io_uring_register_ring_fd.HANDLE; }
    public static MemorySegment io_uring_register_ring_fd$address() { return io_uring_register_ring_fd.ADDR; }

    /** {@snippet lang=c : int io_uring_register_ring_fd(struct io_uring *ring) } (returns 1 on success) */
    public static int io_uring_register_ring_fd(MemorySegment ring) {
        try {
            return (int) io_uring_register_ring_fd.HANDLE.invokeExact(ring);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_unregister_ring_fd {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_unregister_ring_fd");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_unregister_ring_fd$descriptor() { return io_uring_unregister_ring_fd.DESC; }
    public static MethodHandle io_uring_unregister_ring_fd$handle() { return io_uring_unregister_ring_fd.HANDLE; }
    public static MemorySegment io_uring_unregister_ring_fd$address() { return io_uring_unregister_ring_fd.ADDR; }

    /** {@snippet lang=c : int io_uring_unregister_ring_fd(struct io_uring *ring) } */
    public static int io_uring_unregister_ring_fd(MemorySegment ring) {
        try {
            return (int) io_uring_unregister_ring_fd.HANDLE.invokeExact(ring);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_get_probe_ring {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_get_probe_ring");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_get_probe_ring$descriptor() { return io_uring_get_probe_ring.DESC; }
    public static MethodHandle io_uring_get_probe_ring$handle() { return io_uring_get_probe_ring.HANDLE; }
    public static MemorySegment io_uring_get_probe_ring$address() { return io_uring_get_probe_ring.ADDR; }

    /** {@snippet lang=c : struct io_uring_probe *io_uring_get_probe_ring(struct io_uring *ring) } (NULL on failure; free with io_uring_free_probe) */
    public static MemorySegment io_uring_get_probe_ring(MemorySegment ring) {
        try {
            return (MemorySegment) io_uring_get_probe_ring.HANDLE.invokeExact(ring);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class io_uring_free_probe {
        public static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER);
        public static final MemorySegment ADDR = findOrThrow("io_uring_free_probe");
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(ADDR, DESC);
    }

    public static FunctionDescriptor io_uring_free_probe$descriptor() { return io_uring_free_probe.DESC; }
    public static MethodHandle io_uring_free_probe$handle() { return io_uring_free_probe.HANDLE; }
    public static MemorySegment io_uring_free_probe$address() { return io_uring_free_probe.ADDR; }

    /** {@snippet lang=c : void io_uring_free_probe(struct io_uring_probe *probe) } */
    public static void io_uring_free_probe(MemorySegment probe) {
        try {
            io_uring_free_probe.HANDLE.invokeExact(probe);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
