// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.OutboundConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * The blocking path's HTTP/2: calls made off any event loop share a few connections per
 * destination, each driven by a {@link SocketDriver} (a reader and a writer virtual thread) and
 * multiplexing the calls of every thread, up to the server's concurrent streams. A caller hands
 * its request to the connection under the driver's lock and waits for the outcome. Over TLS the
 * first connection's handshake tells whether the destination speaks HTTP/2 at all: one that chose
 * HTTP/1.1 is left to the blocking HTTP/1.1 path ({@link #call} answers null): the connection that
 * found out closes once its calls are answered, so such a destination costs one connection more,
 * once per client.
 */
final class BlockingHttp2 {
    private final ClientSettings settings;
    private final ClientTls tls;
    private final int maxConnections;
    private final Map<Destination, Links> byDestination = new ConcurrentHashMap<>();
    private volatile boolean closed;

    BlockingHttp2(ClientSettings settings, ClientTls tls, int maxConnections) {
        this.settings = settings;
        this.tls = tls;
        this.maxConnections = maxConnections;
    }

    /** One destination's connections and what its server speaks (null: not known yet). */
    private static final class Links {
        final List<Link> links = new ArrayList<>();
        volatile Boolean http2;
    }

    /** One shared connection. */
    private static final class Link {
        final Socket socket = new Socket();
        final SocketDriver driver = new SocketDriver(socket);
        PoolableConnection core;
        OutboundConnection wire;

        boolean takes() {
            return driver.locked(() -> core.isReusable() && core.pending() < core.capacity());
        }

        boolean usable() {
            return driver.locked(core::isReusable);
        }
    }

    /**
     * Sends {@code request} on a shared connection and waits for its outcome.
     *
     * @param address where sockets connect
     * @return the response; null if the destination speaks HTTP/1.1 (the caller takes that path)
     * @throws ClientException if there is none
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    ClientResponse call(Destination d, InetSocketAddress address, ClientRequest request) throws ClientException, InterruptedException {
        Links links = byDestination.computeIfAbsent(d, k -> new Links());
        if (Boolean.FALSE.equals(links.http2)) {
            return null;
        }
        Link[] used = new Link[1];
        try {
            return await(send(d, links, address, request, used));
        } catch (ClientException e) {
            // a refused stream, one above a GOAWAY's last stream, a connection closed before it was sent
            if (e.reason() != Reason.NOT_SENT || !request.resendable() || closed) {
                throw e;
            }
            return await(send(d, links, address, request, used));
        }
    }

    /** Hands {@code request} to a connection other than {@code used[0]} (a first try's), which it then names. */
    private CompletableFuture<ClientResponse> send(Destination d, Links links, InetSocketAddress address, ClientRequest request,
            Link[] used) {
        CompletableFuture<ClientResponse> outcome = new CompletableFuture<>();
        Link avoid = used[0];
        Link link = null;
        boolean opened = false;
        synchronized (links) {
            links.links.removeIf(l -> !l.usable());
            for (Link l : links.links) {
                if (l != avoid && l.takes()) {
                    link = l;
                    break;
                }
            }
            if (link == null && links.http2 == null && !links.links.isEmpty() && links.links.getFirst() != avoid) {
                // the first connection's handshake says whether it carries them all
                link = links.links.getFirst();
            }
            if (link == null && (links.links.size() < maxConnections || links.links.isEmpty() || avoid != null)) {
                link = open(d, links);
                links.links.add(link);
                opened = true;
            } else if (link == null) {
                link = links.links.getFirst();
            }
        }
        Link chosen = link;
        used[0] = chosen;
        chosen.driver.locked(() -> {
            chosen.core.send(request, (response, failure) -> {
                if (response != null) {
                    outcome.complete(response);
                } else {
                    outcome.completeExceptionally(failure);
                }
            });
            return null;
        });
        if (opened) {
            connect(chosen, address);
        } else {
            chosen.driver.wake();
        }
        return outcome;
    }

    private Link open(Destination d, Links links) {
        Link link = new Link();
        ResponseStream.Driver bodies = new ResponseStream.Driver() {
            @Override
            public void wakeup() {
                link.driver.wake();
            }

            @Override
            public void ended(ResponseStream body) {
                body.end();
            }
        };
        if (d.secure()) {
            NegotiatedConnection core = new NegotiatedConnection(d.authority(), settings, Boolean.TRUE.equals(links.http2), h2 -> {
                links.http2 = h2;
                if (!h2) {
                    // the destination's later calls take the HTTP/1.1 path: this one closes once its calls are answered
                    link.core.closeAfterResponse();
                }
            });
            link.core = core;
            link.wire = d.wire(core, tls, true, settings.connectTimeout());
        } else {
            Http2ClientConnection core = new Http2ClientConnection(d.authority(), false, settings, System::nanoTime);
            link.core = core;
            link.wire = d.wire(core, tls, true, settings.connectTimeout());
        }
        link.core.driver(bodies);
        return link;
    }

    /** Connects on the calling thread (the connect timeout bounds it), then the driver's threads take over. */
    private void connect(Link link, InetSocketAddress address) {
        try {
            link.socket.setTcpNoDelay(true);
            link.socket.connect(address, (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis()));
        } catch (SocketTimeoutException e) {
            fail(link, new SocketTimeoutException("not connected within " + settings.connectTimeout().toMillis() + " ms"));
            return;
        } catch (IOException e) {
            fail(link, e);
            return;
        }
        link.driver.start(link.wire, link.wire::connected);
    }

    private static void fail(Link link, IOException cause) {
        try {
            link.socket.close();
        } catch (IOException e) {
            // closing anyway
        }
        link.driver.locked(() -> {
            link.wire.connectFailed(cause);
            link.wire.closed();
            return null;
        });
    }

    private static ClientResponse await(CompletableFuture<ClientResponse> outcome) throws ClientException, InterruptedException {
        try {
            return outcome.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ClientException c) {
                throw c;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Adds each destination's connections: open, idle (none pending), none waiting.
     *
     * @param into by destination: open, idle, waiting
     */
    void counts(Map<Destination, int[]> into) {
        byDestination.forEach((d, links) -> {
            List<Link> now;
            synchronized (links) {
                now = new ArrayList<>(links.links);
            }
            for (Link l : now) {
                boolean[] state = l.driver.locked(() -> new boolean[] {l.core.isReusable(), l.core.pending() == 0});
                if (state[0]) {
                    int[] sum = into.computeIfAbsent(d, k -> new int[3]);
                    sum[0]++;
                    sum[1] += state[1] ? 1 : 0;
                }
            }
        });
    }

    /** Every connection finishes what it carries, then closes. */
    void close() {
        closed = true;
        byDestination.values().forEach(links -> {
            synchronized (links) {
                for (Link l : links.links) {
                    l.driver.locked(() -> {
                        l.core.closeAfterResponse();
                        return null;
                    });
                    l.driver.wake();
                }
            }
        });
    }
}
