// Hand-written in the shape jextract generates (jextract cannot be installed on our machines)
// for the few libc calls the io_uring server makes outside the ring: <sys/socket.h>,
// <sys/eventfd.h>, <unistd.h>, <string.h>. One addition jextract does not make: calls that
// can fail capture errno (Linker.Option.captureCallState), readable through errno().
package dev.spindle.iouring.ffi;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/** Sockets, eventfd, close and strerror from the C library, for Linux x86-64/aarch64. */
@SuppressWarnings({"unused", "checkstyle:MethodName", "restricted"})
public class Libc {

    Libc() {
        // Should not be called directly
    }

    static final SymbolLookup SYMBOL_LOOKUP = Linker.nativeLinker().defaultLookup();

    public static final ValueLayout.OfByte C_CHAR = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort C_SHORT = ValueLayout.JAVA_SHORT;
    public static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfLong C_LONG_LONG = ValueLayout.JAVA_LONG;
    public static final AddressLayout C_POINTER = ValueLayout.ADDRESS
            .withTargetLayout(MemoryLayout.sequenceLayout(java.lang.Long.MAX_VALUE, ValueLayout.JAVA_BYTE));

    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** Each thread's capture buffer (the callers are a few platform threads: ring threads, the starter). */
    private static final ThreadLocal<MemorySegment> CAPTURED = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    static MemorySegment findOrThrow(String symbol) {
        return SYMBOL_LOOKUP.find(symbol).orElseThrow(() -> new UnsatisfiedLinkError("unresolved symbol: " + symbol));
    }

    private static MethodHandle capturing(String symbol, FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(findOrThrow(symbol), descriptor, CAPTURE_ERRNO);
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

    private static MemorySegment capture() {
        return CAPTURED.get();
    }

    /** The errno left by this thread's last failed call through this class. */
    public static int errno() {
        return (int) ERRNO.get(CAPTURED.get(), 0L);
    }

    // constants (Linux)

    public static int AF_INET() { return 2; }
    public static int AF_INET6() { return 10; }
    public static int SOCK_STREAM() { return 1; }
    public static int SOCK_NONBLOCK() { return 0x800; }
    public static int SOCK_CLOEXEC() { return 0x80000; }
    public static int SOL_SOCKET() { return 1; }
    public static int SO_REUSEADDR() { return 2; }
    public static int SO_SNDBUF() { return 7; }
    public static int SO_RCVBUF() { return 8; }
    public static int SO_REUSEPORT() { return 15; }
    public static int IPPROTO_TCP() { return 6; }
    public static int IPPROTO_IPV6() { return 41; }
    public static int IPV6_V6ONLY() { return 26; }
    public static int TCP_NODELAY() { return 1; }
    public static int SHUT_RD() { return 0; }
    public static int SHUT_WR() { return 1; }
    public static int SHUT_RDWR() { return 2; }
    public static int EFD_CLOEXEC() { return 0x80000; }
    public static int EFD_NONBLOCK() { return 0x800; }
    public static int MSG_NOSIGNAL() { return 0x4000; }

    public static int EPERM() { return 1; }
    public static int ENOENT() { return 2; }
    public static int EINTR() { return 4; }
    public static int EBADF() { return 9; }
    public static int EAGAIN() { return 11; }
    public static int ENOMEM() { return 12; }
    public static int EBUSY() { return 16; }
    public static int EEXIST() { return 17; }
    public static int EINVAL() { return 22; }
    public static int ENFILE() { return 23; }
    public static int EMFILE() { return 24; }
    public static int EPIPE() { return 32; }
    public static int ENOSYS() { return 38; }
    public static int ETIME() { return 62; }
    public static int EADDRINUSE() { return 98; }
    public static int ECONNABORTED() { return 103; }
    public static int ECONNRESET() { return 104; }
    public static int ENOBUFS() { return 105; }
    public static int ENOTCONN() { return 107; }
    public static int ETIMEDOUT() { return 110; }
    public static int EALREADY() { return 114; }
    public static int ECANCELED() { return 125; }


    private static class socket {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_INT, C_INT);
        public static final MethodHandle HANDLE = capturing("socket", DESC);
    }

    /** {@snippet lang=c : int socket(int domain, int type, int protocol) } */
    public static int socket(int domain, int type, int protocol) {
        try {
            return (int) socket.HANDLE.invokeExact(capture(), domain, type, protocol);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class setsockopt {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_INT, C_INT, C_POINTER, C_INT);
        public static final MethodHandle HANDLE = capturing("setsockopt", DESC);
    }

    /** {@snippet lang=c : int setsockopt(int fd, int level, int optname, const void *optval, socklen_t optlen) } */
    public static int setsockopt(int fd, int level, int optname, MemorySegment optval, int optlen) {
        try {
            return (int) setsockopt.HANDLE.invokeExact(capture(), fd, level, optname, optval, optlen);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class bind {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_POINTER, C_INT);
        public static final MethodHandle HANDLE = capturing("bind", DESC);
    }

    /** {@snippet lang=c : int bind(int fd, const struct sockaddr *addr, socklen_t len) } */
    public static int bind(int fd, MemorySegment addr, int len) {
        try {
            return (int) bind.HANDLE.invokeExact(capture(), fd, addr, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class listen {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_INT);
        public static final MethodHandle HANDLE = capturing("listen", DESC);
    }

    /** {@snippet lang=c : int listen(int fd, int n) } */
    public static int listen(int fd, int n) {
        try {
            return (int) listen.HANDLE.invokeExact(capture(), fd, n);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class getsockname {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_POINTER, C_POINTER);
        public static final MethodHandle HANDLE = capturing("getsockname", DESC);
    }

    /** {@snippet lang=c : int getsockname(int fd, struct sockaddr *addr, socklen_t *len) } */
    public static int getsockname(int fd, MemorySegment addr, MemorySegment len) {
        try {
            return (int) getsockname.HANDLE.invokeExact(capture(), fd, addr, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class shutdown {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_INT);
        public static final MethodHandle HANDLE = capturing("shutdown", DESC);
    }

    /** {@snippet lang=c : int shutdown(int fd, int how) } */
    public static int shutdown(int fd, int how) {
        try {
            return (int) shutdown.HANDLE.invokeExact(capture(), fd, how);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class close {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT);
        public static final MethodHandle HANDLE = capturing("close", DESC);
    }

    /** {@snippet lang=c : int close(int fd) } */
    public static int close(int fd) {
        try {
            return (int) close.HANDLE.invokeExact(capture(), fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class eventfd {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_INT);
        public static final MethodHandle HANDLE = capturing("eventfd", DESC);
    }

    /** {@snippet lang=c : int eventfd(unsigned int count, int flags) } */
    public static int eventfd(int count, int flags) {
        try {
            return (int) eventfd.HANDLE.invokeExact(capture(), count, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class eventfd_write {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_LONG);
        /** No errno capture: any thread (a virtual thread finishing a blocking route) calls it. */
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(findOrThrow("eventfd_write"), DESC);
    }

    /** {@snippet lang=c : int eventfd_write(int fd, eventfd_t value) } (0, or -1 on failure; errno is not captured) */
    public static int eventfd_write(int fd, long value) {
        try {
            return (int) eventfd_write.HANDLE.invokeExact(fd, value);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static class strerror {
        public static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_INT);
        public static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(findOrThrow("strerror"), DESC);
    }

    /** {@snippet lang=c : char *strerror(int errnum) } */
    public static MemorySegment strerror(int errnum) {
        try {
            return (MemorySegment) strerror.HANDLE.invokeExact(errnum);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code strerror} as a Java string, e.g. "Connection reset by peer". */
    public static String describe(int errnum) {
        MemorySegment s = strerror(errnum);
        return s.address() == 0 ? "errno " + errnum : s.getString(0);
    }
}
