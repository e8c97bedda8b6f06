// SPDX-License-Identifier: Apache-2.0
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

/** Listening and outbound sockets and socket options through libc (FFM), outside the ring. */
final class Sockets {
    private static final ValueLayout.OfShort NETWORK_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final MethodHandle SOCKET = Errno.capturing(Libc.socket$address(), Libc.socket$descriptor());
    private static final MethodHandle SETSOCKOPT = Errno.capturing(Libc.setsockopt$address(), Libc.setsockopt$descriptor());
    private static final MethodHandle BIND = Errno.capturing(Libc.bind$address(), Libc.bind$descriptor());
    private static final MethodHandle LISTEN = Errno.capturing(Libc.listen$address(), Libc.listen$descriptor());
    private static final MethodHandle GETSOCKNAME = Errno.capturing(Libc.getsockname$address(), Libc.getsockname$descriptor());
    /** Room for either address family's {@code sockaddr}. */
    static final long SOCKADDR_SIZE = Math.max(sockaddr_in.sizeof(), sockaddr_in6.sizeof());
    static final long SOCKADDR_ALIGNMENT = Math.max(sockaddr_in.layout().byteAlignment(), sockaddr_in6.layout().byteAlignment());

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
            MemorySegment bound = arena.allocate(SOCKADDR_SIZE, SOCKADDR_ALIGNMENT);
            int length = fillAddress(bound, host, port);
            Errno.check("cannot bind " + host.getHostAddress() + ":" + port, () -> (int) BIND.invokeExact(fd, bound, length));
            Errno.check("listen", () -> (int) LISTEN.invokeExact(fd, backlog));
            return fd;
        } catch (IOException | RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
    }

    /**
     * A new non-blocking TCP socket for {@code remote}'s address family (an outbound socket, which
     * the ring connects), with TCP_NODELAY ({@code one} holds the int 1); returns its fd.
     */
    static int openOutbound(InetAddress remote, MemorySegment one) throws IOException {
        int family = remote instanceof Inet6Address ? Libc.AF_INET6() : Libc.AF_INET();
        int fd = Errno.check("socket", () -> (int) SOCKET.invokeExact(family,
                Libc.SOCK_STREAM() | Libc.SOCK_NONBLOCK() | Libc.SOCK_CLOEXEC(), 0));
        try {
            Errno.check("setsockopt TCP_NODELAY", () -> (int) SETSOCKOPT.invokeExact(fd, Libc.IPPROTO_TCP(), Libc.TCP_NODELAY(), one, Integer.BYTES));
        } catch (IOException | RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
        return fd;
    }

    /**
     * Writes {@code host:port} as a {@code sockaddr_in} or {@code sockaddr_in6} into {@code addr}
     * (at least {@link #SOCKADDR_SIZE} bytes, aligned to {@link #SOCKADDR_ALIGNMENT}); returns its length, the {@code socklen_t} to pass.
     */
    static int fillAddress(MemorySegment addr, InetAddress host, int port) {
        if (host instanceof Inet6Address v6) {
            MemorySegment a = addr.asSlice(0, sockaddr_in6.sizeof()).fill((byte) 0);
            sockaddr_in6.sin6_family(a, (short) Libc.AF_INET6());
            a.set(NETWORK_SHORT, sockaddr_in6.sin6_port$offset(), (short) port);
            MemorySegment.copy(host.getAddress(), 0, a, ValueLayout.JAVA_BYTE, sockaddr_in6.sin6_addr$offset(), 16);
            sockaddr_in6.sin6_scope_id(a, v6.getScopeId());
            return (int) a.byteSize();
        }
        MemorySegment a = addr.asSlice(0, sockaddr_in.sizeof()).fill((byte) 0);
        sockaddr_in.sin_family(a, (short) Libc.AF_INET());
        a.set(NETWORK_SHORT, sockaddr_in.sin_port$offset(), (short) port);
        MemorySegment.copy(host.getAddress(), 0, a, ValueLayout.JAVA_BYTE, sockaddr_in.sin_addr$offset(), 4);
        return (int) a.byteSize();
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

    /** TCP_NODELAY on a socket ({@code one} holds the int 1); false if it failed (an accepted socket's peer may be gone already). */
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
