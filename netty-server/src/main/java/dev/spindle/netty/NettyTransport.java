package dev.spindle.netty;

import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.net.StandardSocketOptions;
import java.util.Locale;

/**
 * The Netty transports {@link NettyServer} can run on: the same pipeline, a different
 * {@link IoHandlerFactory} and server channel class (Netty 4.2's {@code MultiThreadIoEventLoopGroup}
 * model). The native ones need Linux x86_64 and their classifier jars on the class path.
 */
public enum NettyTransport {
    /** Java NIO selectors; always available. */
    NIO("nio"),
    /** Netty's JNI epoll transport ({@code netty-transport-native-epoll}). */
    EPOLL("epoll"),
    /** Netty's JNI io_uring transport ({@code netty-transport-native-io_uring}, new in 4.2). */
    IO_URING("io_uring");

    /** System property that picks the transport for {@link NettyServer#NettyServer(dev.spindle.core.ServerConfig, dev.spindle.core.Router)}. */
    public static final String PROPERTY = "spindle.netty.transport";

    private final String id;

    NettyTransport(String id) {
        this.id = id;
    }

    /**
     * The name used by {@value #PROPERTY}.
     *
     * @return {@code nio}, {@code epoll} or {@code io_uring}
     */
    public String id() {
        return id;
    }

    /**
     * Whether Netty's native library for this transport loads on this machine (NIO always does).
     *
     * @return true when a server can use it
     */
    public boolean isAvailable() {
        return switch (this) {
            case NIO -> true;
            case EPOLL -> Epoll.isAvailable();
            case IO_URING -> IoUring.isAvailable();
        };
    }

    /**
     * Why the transport cannot be used here.
     *
     * @return Netty's reason, or null when it can be used
     */
    public Throwable unavailabilityCause() {
        return switch (this) {
            case NIO -> null;
            case EPOLL -> Epoll.unavailabilityCause();
            case IO_URING -> IoUring.unavailabilityCause();
        };
    }

    /**
     * Whether the transport sends a {@link io.netty.channel.DefaultFileRegion} (zero-copy: NIO
     * {@code transferTo}, epoll {@code sendfile}, io_uring {@code splice}); io_uring rejects file
     * regions when its kernel lacks {@code IORING_OP_SPLICE}.
     */
    boolean supportsFileRegion() {
        return switch (this) {
            case NIO, EPOLL -> true;
            case IO_URING -> IoUring.isSpliceSupported();
        };
    }

    IoHandlerFactory ioHandlerFactory() {
        return switch (this) {
            case NIO -> NioIoHandler.newFactory();
            case EPOLL -> EpollIoHandler.newFactory();
            case IO_URING -> IoUringIoHandler.newFactory();
        };
    }

    /** SO_REUSEPORT as this transport's server channel takes it. */
    ChannelOption<Boolean> reusePortOption() {
        return switch (this) {
            case NIO -> NioChannelOption.of(StandardSocketOptions.SO_REUSEPORT);
            case EPOLL -> EpollChannelOption.SO_REUSEPORT;
            case IO_URING -> IoUringChannelOption.SO_REUSEPORT;
        };
    }

    Class<? extends ServerChannel> serverChannelClass() {
        return switch (this) {
            case NIO -> NioServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            case IO_URING -> IoUringServerSocketChannel.class;
        };
    }

    /**
     * The fastest transport this machine allows: io_uring, else epoll, else NIO.
     *
     * @return an available transport
     */
    public static NettyTransport best() {
        if (IO_URING.isAvailable()) {
            return IO_URING;
        }
        if (EPOLL.isAvailable()) {
            return EPOLL;
        }
        return NIO;
    }

    /**
     * The transport named by {@value #PROPERTY}, or {@link #best()} when it is unset.
     *
     * @return the transport to use
     * @throws IllegalArgumentException for an unknown name
     */
    public static NettyTransport fromSystemProperty() {
        String value = System.getProperty(PROPERTY);
        return value == null || value.isBlank() ? best() : of(value);
    }

    /**
     * Parses a transport name, case-insensitively.
     *
     * @param name {@code nio}, {@code epoll} or {@code io_uring} (also {@code iouring}, {@code io-uring})
     * @return the transport it names
     * @throws IllegalArgumentException for any other name
     */
    public static NettyTransport of(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        if (n.equals("iouring")) {
            n = "io_uring";
        }
        for (NettyTransport t : values()) {
            if (t.id.equals(n)) {
                return t;
            }
        }
        throw new IllegalArgumentException("invalid value for -D" + PROPERTY + ": " + name + " (nio, epoll or io_uring)");
    }

    @Override
    public String toString() {
        return id;
    }
}
