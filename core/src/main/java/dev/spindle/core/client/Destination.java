// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.spi.OutboundConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * One {@code host:port} a client sends to: its address, and the idle connections the blocking
 * path keeps to it. Shared by every thread of one client. An IP literal is its address for good;
 * a name is looked up on a virtual thread when it is needed (never on an event loop), and the
 * answer is kept as the JDK keeps its own: a found address for {@link #FOUND_NANOS}, a failed
 * lookup for {@link #FAILED_NANOS}, so a name that moves or comes back is followed.
 */
public final class Destination {
    /** How long a found address is used before the name is looked up again (the JDK's default TTL). */
    static final long FOUND_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How long a failed lookup is the answer before the name is looked up again. */
    static final long FAILED_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** One lookup of the name; {@code doneAt} is written before the future completes. */
    private static final class Lookup {
        final CompletableFuture<InetSocketAddress> future = new CompletableFuture<>();
        volatile long doneAt;
    }

    /** What ALPN offers: HTTP/1.1 is what the client speaks. */
    private static final List<String> HTTP_1_1 = List.of("http/1.1");
    private static final List<String> H2_HTTP_1_1 = List.of("h2", "http/1.1");

    private final String host;
    private final int port;
    private final String authority;
    private final boolean literal;
    private final boolean secure;
    private final Destination proxy;
    private final LongSupplier clock;
    private final AtomicReference<Lookup> lookup = new AtomicReference<>();
    /** Idle connections of the blocking path, most recently used first. */
    final ConcurrentLinkedDeque<BlockingConnection> idleBlocking = new ConcurrentLinkedDeque<>();
    final AtomicInteger idleBlockingCount = new AtomicInteger();
    /** Connections of the blocking path taken for a call and not released yet. */
    final AtomicInteger blockingInUse = new AtomicInteger();

    /**
     * A destination.
     *
     * @param host the host name or IP literal (an IPv6 literal without its brackets)
     * @param port the port
     * @param authority {@code host:port} as the address gave it: the requests' {@code Host}
     */
    public Destination(String host, int port, String authority) {
        this(host, port, authority, false);
    }

    /**
     * A destination spoken to over TLS or not.
     *
     * @param host the host name or IP literal (an IPv6 literal without its brackets)
     * @param port the port
     * @param authority {@code host:port} as the address gave it: the requests' {@code Host}
     * @param secure whether it is an {@code https:} destination
     */
    public Destination(String host, int port, String authority, boolean secure) {
        this(host, port, authority, secure, null, System::nanoTime);
    }

    /**
     * A destination reached through a tunnel of an HTTP proxy.
     *
     * @param host the host name or IP literal (an IPv6 literal without its brackets)
     * @param port the port
     * @param authority {@code host:port} as the address gave it: the requests' {@code Host}
     * @param secure whether it is an {@code https:} destination
     * @param proxy the proxy the sockets connect to (CONNECT then opens the tunnel), or null for none
     */
    public Destination(String host, int port, String authority, boolean secure, Destination proxy) {
        this(host, port, authority, secure, proxy, System::nanoTime);
    }

    Destination(String host, int port, String authority, LongSupplier clock) {
        this(host, port, authority, false, null, clock);
    }

    private Destination(String host, int port, String authority, boolean secure, Destination proxy, LongSupplier clock) {
        this.host = host;
        this.port = port;
        this.authority = authority;
        this.secure = secure;
        this.proxy = proxy;
        this.clock = clock;
        InetAddress address = literal(host);
        this.literal = address != null;
        if (literal) {
            Lookup done = new Lookup();
            done.future.complete(new InetSocketAddress(address, port));
            lookup.set(done);
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

    /** {@return whether requests go over TLS ({@code https:})} */
    public boolean secure() {
        return secure;
    }

    /** {@return the host the address gave, an IPv6 literal without brackets} */
    public String host() {
        return host;
    }

    /** {@return the port} */
    public int port() {
        return port;
    }

    /**
     * What a strategy drives for {@code core}, a new connection to this destination: the
     * connection itself, or TLS around it for an {@code https:} one; through a proxy, in a tunnel.
     *
     * @param core the HTTP connection
     * @param tls how the client speaks TLS
     * @param handshakeTimeout the most the connect and the TLS handshake take together
     * @return the connection to drive
     */
    OutboundConnection wire(ClientConnection core, ClientTls tls, Duration handshakeTimeout) {
        return wire(core, tls, false, handshakeTimeout);
    }

    /** As {@link #wire(ClientConnection, ClientTls, Duration)}, with ALPN offering {@code h2} first if {@code offerHttp2}. */
    OutboundConnection wire(OutboundConnection core, ClientTls tls, boolean offerHttp2, Duration handshakeTimeout) {
        OutboundConnection c = secure ? tls.around(core, host, port, offerHttp2 ? H2_HTTP_1_1 : HTTP_1_1, handshakeTimeout) : core;
        return proxy == null ? c : new ProxyTunnel(c, (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port, proxy.authority());
    }

    /** {@return where the sockets connect: the proxy, or this destination} */
    Destination connectsTo() {
        return proxy != null ? proxy : this;
    }

    /**
     * The address if it is known and fresh, without waiting or looking it up.
     *
     * @return the address, or null while it is being looked up, if it could not be, or once it is
     *         due to be looked up again
     */
    public InetSocketAddress addressNow() {
        Lookup l = lookup.get();
        if (l == null || !l.future.isDone() || l.future.isCompletedExceptionally() || stale(l)) {
            return null;
        }
        return l.future.getNow(null);
    }

    /**
     * The address: the last answer while it is fresh, else a new lookup on a virtual thread (one
     * at a time, however many callers ask).
     *
     * @return completes with the address, or fails with an {@link UnknownHostException}
     */
    public CompletableFuture<InetSocketAddress> resolve() {
        for (;;) {
            Lookup l = lookup.get();
            if (l != null && (!l.future.isDone() || !stale(l))) {
                return l.future;
            }
            Lookup next = new Lookup();
            if (lookup.compareAndSet(l, next)) {
                Thread.ofVirtual().name("spindle-client-resolve").start(() -> look(next));
                return next.future;
            }
        }
    }

    private void look(Lookup l) {
        InetSocketAddress found = null;
        UnknownHostException failure = null;
        try {
            found = new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new UnknownHostException(host + ": " + e.getMessage());
        }
        l.doneAt = clock.getAsLong();
        if (failure == null) {
            l.future.complete(found);
        } else {
            l.future.completeExceptionally(failure);
        }
    }

    private boolean stale(Lookup l) {
        if (literal) {
            return false;
        }
        long age = clock.getAsLong() - l.doneAt;
        return age >= (l.future.isCompletedExceptionally() ? FAILED_NANOS : FOUND_NANOS);
    }

    private static InetAddress literal(String host) {
        if (!Ascii.isIpLiteral(host)) {
            return null;
        }
        try {
            return InetAddress.ofLiteral(host);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The destination an address's authority names.
     *
     * @param authority {@code host[:port]} as the address gave it
     * @param secure whether it is an {@code https:} address (port 443 by default, else 80)
     * @param proxy the proxy its connections tunnel through, or null
     * @return the destination
     * @throws IllegalArgumentException for no host, user information, a bad IPv6 literal or port
     */
    public static Destination parse(String authority, boolean secure, Destination proxy) {
        if (authority.isEmpty()) {
            throw new IllegalArgumentException("the address has no host");
        }
        if (authority.indexOf('@') >= 0) {
            throw new IllegalArgumentException("user information in the address is not supported: " + authority);
        }
        String host;
        int colon;
        if (authority.charAt(0) == '[') {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("unclosed IPv6 literal in the address: " + authority);
            }
            host = authority.substring(1, close);
            colon = close + 1 < authority.length() && authority.charAt(close + 1) == ':' ? close + 1 : -1;
            if (colon < 0 && close + 1 != authority.length()) {
                throw new IllegalArgumentException("bad host in the address: " + authority);
            }
        } else {
            colon = authority.lastIndexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("the address has no host: " + authority);
        }
        int port = secure ? 443 : 80;
        if (colon >= 0) {
            try {
                port = Integer.parseInt(authority, colon + 1, authority.length(), 10);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad port in the address: " + authority);
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range in the address: " + authority);
            }
        }
        return new Destination(host, port, authority, secure, proxy);
    }

    @Override
    public String toString() {
        return authority;
    }
}
