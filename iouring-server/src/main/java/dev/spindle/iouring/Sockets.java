package dev.spindle.iouring;

import dev.spindle.iouring.ffi.Libc;
import dev.spindle.iouring.ffi.sockaddr_in6;
import dev.spindle.iouring.ffi.sockaddr_in;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;

/** Listening sockets and socket options through libc (FFM), outside the ring. */
final class Sockets {
    private static final ValueLayout.OfShort NETWORK_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final MethodHandle SOCKET = Errno.capturing(Libc.socket$address(), Libc.socket$descriptor());
    private static final MethodHandle SETSOCKOPT = Errno.capturing(Libc.setsockopt$address(), Libc.setsockopt$descriptor());
    private static final MethodHandle BIND = Errno.capturing(Libc.bind$address(), Libc.bind$descriptor());
    private static final MethodHandle LISTEN = Errno.capturing(Libc.listen$address(), Libc.listen$descriptor());
    private static final MethodHandle GETSOCKNAME = Errno.capturing(Libc.getsockname$address(), Libc.getsockname$descriptor());

    private Sockets() {
    }

    /**
     * A listening TCP socket on {@code host:port} with SO_REUSEADDR and SO_REUSEPORT (so each
     * ring can have its own on the same port) and TCP_NODELAY; returns its fd.
     */
    static int listen(InetAddress host, int port, int backlog) throws IOException {
        boolean v6 = host instanceof Inet6Address;
        int family = v6 ? Libc.AF_INET6() : Libc.AF_INET();
        int fd = Errno.check("socket", () -> (int) SOCKET.invokeExact(family, Libc.SOCK_STREAM() | Libc.SOCK_CLOEXEC(), 0));
        try (Arena arena = Arena.ofConfined()) {
            setInt(fd, Libc.SOL_SOCKET(), Libc.SO_REUSEADDR(), 1, "SO_REUSEADDR");
            setInt(fd, Libc.SOL_SOCKET(), Libc.SO_REUSEPORT(), 1, "SO_REUSEPORT");
            setInt(fd, Libc.IPPROTO_TCP(), Libc.TCP_NODELAY(), 1, "TCP_NODELAY");
            MemorySegment addr;
            if (v6) {
                addr = sockaddr_in6.allocate(arena).fill((byte) 0);
                sockaddr_in6.sin6_family(addr, (short) Libc.AF_INET6());
                addr.set(NETWORK_SHORT, sockaddr_in6.sin6_port$offset(), (short) port);
                MemorySegment.copy(host.getAddress(), 0, addr, ValueLayout.JAVA_BYTE, sockaddr_in6.sin6_addr$offset(), 16);
                sockaddr_in6.sin6_scope_id(addr, ((Inet6Address) host).getScopeId());
            } else {
                addr = sockaddr_in.allocate(arena).fill((byte) 0);
                sockaddr_in.sin_family(addr, (short) Libc.AF_INET());
                addr.set(NETWORK_SHORT, sockaddr_in.sin_port$offset(), (short) port);
                MemorySegment.copy(host.getAddress(), 0, addr, ValueLayout.JAVA_BYTE, sockaddr_in.sin_addr$offset(), 4);
            }
            MemorySegment bound = addr;
            Errno.check("cannot bind " + host.getHostAddress() + ":" + port, () -> (int) BIND.invokeExact(fd, bound, (int) bound.byteSize()));
            Errno.check("listen", () -> (int) LISTEN.invokeExact(fd, backlog));
            return fd;
        } catch (IOException | RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
    }

    /** The address a socket is bound to. */
    static InetSocketAddress localAddress(int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment addr = arena.allocate(sockaddr_in6.sizeof()).fill((byte) 0);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, (int) addr.byteSize());
            Errno.check("getsockname", () -> (int) GETSOCKNAME.invokeExact(fd, addr, len));
            int family = Short.toUnsignedInt(sockaddr_in.sin_family(addr));
            int port = Short.toUnsignedInt(addr.get(NETWORK_SHORT, sockaddr_in.sin_port$offset()));
            byte[] ip;
            if (family == Libc.AF_INET6()) {
                ip = addr.asSlice(sockaddr_in6.sin6_addr$offset(), 16).toArray(ValueLayout.JAVA_BYTE);
            } else {
                ip = addr.asSlice(sockaddr_in.sin_addr$offset(), 4).toArray(ValueLayout.JAVA_BYTE);
            }
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        }
    }

    /** TCP_NODELAY on an accepted socket; false if it failed (the peer may be gone already). */
    static boolean noDelay(int fd, MemorySegment one) {
        return Libc.setsockopt(fd, Libc.IPPROTO_TCP(), Libc.TCP_NODELAY(), one, Integer.BYTES) == 0;
    }

    private static void setInt(int fd, int level, int option, int value, String name) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(ValueLayout.JAVA_INT);
            v.set(ValueLayout.JAVA_INT, 0, value);
            Errno.check("setsockopt " + name, () -> (int) SETSOCKOPT.invokeExact(fd, level, option, v, Integer.BYTES));
        }
    }

    static void closeQuietly(int fd) {
        if (fd >= 0) {
            Libc.close(fd);
        }
    }
}
