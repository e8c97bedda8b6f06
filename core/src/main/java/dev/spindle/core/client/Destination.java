package dev.spindle.core.client;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One {@code host:port} a client sends to: its address, resolved once (an IP literal at once, a
 * name on a virtual thread the first time it is needed, never on an event loop), and the idle
 * connections the blocking path keeps to it. Shared by every thread of one client.
 */
public final class Destination {
    private final String host;
    private final int port;
    private final String authority;
    private final CompletableFuture<InetSocketAddress> address = new CompletableFuture<>();
    private final AtomicInteger resolveStarted = new AtomicInteger();
    /** Idle connections of the blocking path, most recently used first. */
    final ConcurrentLinkedDeque<BlockingConnection> idleBlocking = new ConcurrentLinkedDeque<>();
    final AtomicInteger idleBlockingCount = new AtomicInteger();

    /**
     * A destination.
     *
     * @param host the host name or IP literal (an IPv6 literal without its brackets)
     * @param port the port
     * @param authority {@code host:port} as the address gave it: the requests' {@code Host}
     */
    public Destination(String host, int port, String authority) {
        this.host = host;
        this.port = port;
        this.authority = authority;
        InetAddress literal = literal(host);
        if (literal != null) {
            address.complete(new InetSocketAddress(literal, port));
            resolveStarted.set(1);
        }
    }

    /**
     * The destination as {@code host:port}.
     *
     * @return the authority requests name in {@code Host}
     */
    public String authority() {
        return authority;
    }

    /**
     * The resolved address if it is known, without waiting or resolving.
     *
     * @return the address, or null while it is being resolved or if it could not be
     */
    InetSocketAddress addressNow() {
        return address.isDone() && !address.isCompletedExceptionally() ? address.getNow(null) : null;
    }

    /**
     * The address, resolving it on a virtual thread the first time.
     *
     * @return completes with the address, or fails with an {@link UnknownHostException}
     */
    CompletableFuture<InetSocketAddress> resolve() {
        if (resolveStarted.compareAndSet(0, 1)) {
            Thread.ofVirtual().name("spindle-client-resolve").start(() -> {
                try {
                    address.complete(new InetSocketAddress(InetAddress.getByName(host), port));
                } catch (UnknownHostException e) {
                    address.completeExceptionally(e);
                } catch (RuntimeException e) {
                    address.completeExceptionally(new UnknownHostException(host + ": " + e.getMessage()));
                }
            });
        }
        return address;
    }

    private static InetAddress literal(String host) {
        if (!isLiteral(host)) {
            return null;
        }
        try {
            return InetAddress.ofLiteral(host);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Digits and dots (IPv4), or a colon (IPv6): nothing a DNS name looks like. */
    private static boolean isLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return true;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return !host.isEmpty();
    }

    @Override
    public String toString() {
        return authority;
    }
}
