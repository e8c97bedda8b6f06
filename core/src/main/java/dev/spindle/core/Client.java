// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.client.BlockingCalls;
import dev.spindle.core.client.ClientRequest;
import dev.spindle.core.client.ClientSettings;
import dev.spindle.core.client.Destination;
import dev.spindle.core.client.InputStreamSource;
import dev.spindle.core.client.LoopPools;
import dev.spindle.core.spi.OutboundLoop;
import dev.spindle.core.websocket.WebSocketClient;
import dev.spindle.core.spi.OutboundLoops;
import dev.spindle.core.client.ClientTls;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;

/**
 * Spindle's HTTP/1.1 client, for calling other services from handlers (or from anywhere):
 * {@code client.get("http://127.0.0.1:8081/users/7").send()}. Create one per application and share
 * it; it is thread-safe.
 *
 * <p>Where the request runs depends on the calling thread. On an event loop of a Spindle server
 * (an inline or asynchronous handler on the NIO servers), {@link RequestBuilder#send()} sends it on
 * that loop, through the loop's own pool of keep-alive connections to the destination: the loop
 * opens, writes and reads the connection beside the ones it serves, no other thread is involved,
 * and the returned stage completes on the loop's thread. Each loop has its own pools, so loops
 * share nothing. Off a loop (a blocking handler on a virtual thread, a thread-per-connection
 * server, any other code), {@link RequestBuilder#call()} makes the exchange on the calling thread
 * over a blocking socket, reusing idle connections kept per destination, and
 * {@link RequestBuilder#send()} does the same on a new virtual thread.
 *
 * <p>Responses are buffered whole ({@link ClientResponse}), or streamed at the reader's pace when
 * the request asks for it ({@link RequestBuilder#streamResponse()}); a request that gets none fails
 * with a {@link ClientException} whose {@link ClientException#reason()} says why. Any status, 404
 * or 500 included, is a response, not a failure. Host names are resolved off the event loops; an
 * address found is kept for 30 seconds, a failed lookup for 10, then the name is looked up again.
 *
 * <p>{@code https://} addresses speak TLS through the same TLS layer as Spindle's servers, on the
 * loops and off them alike: the server's certificate must be trusted and name the host (see
 * {@link ClientConfig} for a trust store, a client certificate or a context of one's own), SNI
 * names the host, and a connection to a server the client spoke to resumes its TLS session. A
 * handshake that fails says why ({@link ClientException.Reason#CERTIFICATE_UNTRUSTED},
 * {@link ClientException.Reason#HOSTNAME_MISMATCH}, {@link ClientException.Reason#TLS_HANDSHAKE_TIMEOUT},
 * {@link ClientException.Reason#TLS_FAILED}). HTTP/2 is not spoken yet: ALPN offers HTTP/1.1.
 */
public final class Client implements AutoCloseable {
    private final ClientConfig config;
    private final ClientSettings settings;
    private final LoopPools.PoolLimits limits;
    private final ClientInterceptor[] interceptors;
    private final ConcurrentHashMap<String, Destination> destinations = new ConcurrentHashMap<>();
    /** The destination of the last request made, checked first. */
    private volatile Destination lastDestination;
    /** This client's pools on the calling loop thread: found without a lock, never shared across loops. */
    private final ThreadLocal<LoopPools> loopPools = new ThreadLocal<>();
    /** Every loop's pools, for {@link #close()}. */
    private final ConcurrentLinkedQueue<LoopPools> allLoopPools = new ConcurrentLinkedQueue<>();
    private final BlockingCalls blocking;
    /** How requests to {@code https:} addresses speak TLS. */
    private final ClientTls tls;
    /** The proxy every connection tunnels through, or null. */
    private final Destination proxy;
    private volatile boolean closed;
    /** Open WebSockets, each with its destination as {@link #pools()} names it ({@code ws://host:port}). */
    private final java.util.Map<WebSocket, String> webSockets = new java.util.concurrent.ConcurrentHashMap<>();

    private Client(ClientConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.settings = config.settings();
        this.interceptors = config.interceptorArray();
        this.limits = new LoopPools.PoolLimits(config.maxConnectionsPerDestination(), config.maxWaitingRequests(), config.http2(),
                config.h2cPriorKnowledge());
        this.tls = config.clientTls();
        this.proxy = config.proxy() == null ? null : destination(config.proxy(), false, null);
        this.blocking = new BlockingCalls(settings, config.maxConnectionsPerDestination(), config.maxWaitingRequests(), tls, config.http2(), config.h2cPriorKnowledge());
    }

    /**
     * A client with the default configuration ({@link ClientConfig#defaults()}).
     *
     * @return a new client
     */
    public static Client create() {
        return new Client(ClientConfig.defaults());
    }

    /**
     * A client with the given configuration.
     *
     * @param config its timeouts and pool sizes
     * @return a new client
     */
    public static Client create(ClientConfig config) {
        return new Client(config);
    }

    /**
     * This client's configuration.
     *
     * @return the configuration it was created with
     */
    public ClientConfig config() {
        return config;
    }

    /**
     * A {@code GET} request, to be completed and sent.
     *
     * @param uri an absolute {@code http://} or {@code https://} address, such as {@code http://127.0.0.1:8081/delay/100}
     * @return the request
     * @throws IllegalArgumentException if {@code uri} is not an absolute {@code http://} or {@code https://} address
     */
    public RequestBuilder get(String uri) {
        return request("GET", uri);
    }

    /**
     * A {@code POST} request, to be completed (usually with a body) and sent.
     *
     * @param uri an absolute {@code http://} or {@code https://} address
     * @return the request
     * @throws IllegalArgumentException if {@code uri} is not an absolute {@code http://} or {@code https://} address
     */
    public RequestBuilder post(String uri) {
        return request("POST", uri);
    }

    /**
     * A request with any method, to be completed and sent.
     *
     * @param method the method, a token such as {@code PUT}, case-sensitive
     * @param uri an absolute {@code http://} or {@code https://} address: host, optional port (80
     *        or 443 by default), path and query, already percent-encoded; a fragment is dropped
     * @return the request
     * @throws IllegalArgumentException if the method is not a token or {@code uri} is not an
     *         absolute {@code http://} or {@code https://} address
     */
    public RequestBuilder request(String method, String uri) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(uri, "uri");
        boolean secure = uri.regionMatches(true, 0, "https://", 0, 8);
        if (!secure && !uri.regionMatches(true, 0, "http://", 0, 7)) {
            throw new IllegalArgumentException("the address must be absolute and start with http:// or https://, got \"" + uri + "\"");
        }
        int start = secure ? 8 : 7;
        int end = start;
        while (end < uri.length() && uri.charAt(end) != '/' && uri.charAt(end) != '?' && uri.charAt(end) != '#') {
            end++;
        }
        Destination destination = lastDestination;
        if (destination == null || destination.secure() != secure || !uri.regionMatches(start, destination.authority(), 0, end - start)
                || destination.authority().length() != end - start) {
            // most clients call one or a few services: the last one is found without a substring
            String authority = uri.substring(start, end);
            destination = destinations.computeIfAbsent(secure ? "https://" + authority : authority,
                    key -> destination(authority, secure, proxy));
            lastDestination = destination;
        }
        int fragment = uri.indexOf('#', end);
        int targetEnd = fragment < 0 ? uri.length() : fragment;
        ClientRequest request;
        if (end == targetEnd) {
            request = new ClientRequest(method, "/");
        } else if (uri.charAt(end) == '?') {
            request = new ClientRequest(method, "/" + uri.substring(end, targetEnd));
        } else {
            // the target stays a region of the address: no substring per request
            request = new ClientRequest(method, uri, end, targetEnd);
        }
        return new RequestBuilder(this, destination, request);
    }

    private static Destination destination(String authority, boolean secure, Destination proxy) {
        return Destination.parse(authority, secure, proxy);
    }

    /** Runs the configuration's interceptors on a request being sent, on the caller's thread. */
    void intercept(RequestBuilder request) {
        if (config.decompression()) {
            Decompression.offer(request);
        }
        for (ClientInterceptor interceptor : interceptors) {
            interceptor.beforeSend(request);
        }
    }

    CompletableFuture<ClientResponse> send(Destination destination, ClientRequest request) {
        OutboundLoop loop = OutboundLoops.current();
        if (loop != null) {
            return pools(loop).send(destination, request);
        }
        CompletableFuture<ClientResponse> result = new CompletableFuture<>();
        Thread.ofVirtual().name("spindle-client").start(() -> {
            try {
                result.complete(blocking.call(destination, request));
            } catch (ClientException e) {
                result.completeExceptionally(e);
            } catch (InterruptedException e) {
                result.completeExceptionally(e);
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    ClientResponse call(Destination destination, ClientRequest request) throws ClientException, InterruptedException {
        OutboundLoop loop = OutboundLoops.current();
        if (loop != null) {
            throw new IllegalStateException("call() would block the event loop " + Thread.currentThread().getName()
                    + " and every connection on it: use send() there");
        }
        return blocking.call(destination, request);
    }

    private LoopPools pools(OutboundLoop loop) {
        LoopPools pools = loopPools.get();
        if (pools != null && pools.loop() == loop) {
            return pools;
        }
        pools = new LoopPools(loop, settings, limits, tls);
        loopPools.set(pools);
        allLoopPools.add(pools);
        if (closed) {
            pools.close();
        }
        return pools;
    }

    /**
     * What the client holds per destination now: connections open and idle, requests waiting for
     * one, summed over every event loop's pools and the blocking path. For metrics (the Micrometer
     * module gauges it); callable from any thread, it waits for nothing.
     *
     * @return one entry per destination the client has called, by destination; open WebSockets as
     *         their own destinations ({@code ws://host:port}, {@code wss://host:port}), each socket one
     *         connection open
     */
    public java.util.List<ClientPool> pools() {
        java.util.Map<Destination, int[]> counts = new java.util.HashMap<>();
        for (LoopPools p : allLoopPools) {
            p.counts(counts);
        }
        blocking.counts(counts);
        java.util.List<ClientPool> pools = new java.util.ArrayList<>(counts.size());
        counts.forEach((d, c) -> pools.add(new ClientPool((d.secure() ? "https://" : "http://") + d.authority(), c[0],
                Math.min(c[1], c[0]), c[2])));
        // a WebSocket is a connection of its own: open while it is, never idle, nothing waits for it
        java.util.Map<String, Integer> sockets = new java.util.TreeMap<>();
        webSockets.values().forEach(d -> sockets.merge(d, 1, Integer::sum));
        sockets.forEach((d, n) -> pools.add(new ClientPool(d, n, 0, 0)));
        pools.sort(java.util.Comparator.comparing(ClientPool::destination));
        return pools;
    }

    /**
     * Closes the client: requests waiting for a connection fail ({@link ClientException.Reason#NOT_SENT}),
     * idle connections close, and busy ones close once their requests are answered, each on its
     * own event loop; open WebSockets close with 1001. Requests made afterwards fail. Returns without waiting.
     */
    @Override
    public void close() {
        closed = true;
        for (WebSocket socket : webSockets.keySet()) {
            socket.close(1001, "the client is closing");
        }
        for (LoopPools pools; (pools = allLoopPools.poll()) != null; ) {
            LoopPools p = pools;
            try {
                p.loop().execute(p::close);
            } catch (RejectedExecutionException stopped) {
                // the loop has stopped and closed its sockets
            }
        }
        blocking.close();
    }

    /**
     * Starts a WebSocket connection (RFC 6455) to {@code url}, a {@code ws:} URI (plaintext only as
     * yet), with {@link WebSocketBuilder#connect} to follow.
     *
     * @param url such as {@code ws://127.0.0.1:8081/chat}
     * @return a builder for the handshake's headers, sub-protocols, compression and limits
     * @throws IllegalArgumentException if {@code url} is not a URI
     */
    public WebSocketBuilder webSocket(String url) {
        return webSocket(URI.create(url));
    }

    /**
     * As {@link #webSocket(String)}.
     *
     * @param uri a {@code ws:} URI
     * @return a builder
     */
    public WebSocketBuilder webSocket(URI uri) {
        return new WebSocketBuilder(this, Objects.requireNonNull(uri, "uri"));
    }

    /**
     * Opens a WebSocket to {@code url} with the defaults: {@code webSocket(url).connect(endpoint)}.
     *
     * @param url a {@code ws:} URI
     * @param endpoint the socket's callbacks, as on a server's route
     * @return as {@link WebSocketBuilder#connect}
     */
    public CompletionStage<WebSocket> webSocket(String url, WebSocket.Endpoint endpoint) {
        return webSocket(url).connect(endpoint);
    }

    /**
     * Opens a WebSocket to {@code uri} with the defaults.
     *
     * @param uri a {@code ws:} URI
     * @param endpoint the socket's callbacks
     * @return as {@link WebSocketBuilder#connect}
     */
    public CompletionStage<WebSocket> webSocket(URI uri, WebSocket.Endpoint endpoint) {
        return webSocket(uri).connect(endpoint);
    }

    /**
     * A WebSocket opening handshake being completed, then made once with {@link #connect}. Its
     * {@link WebSocket.Options} start from {@link WebSocket.Options#defaults()} without the idle
     * timeout (a client keeps a quiet socket; pings after 30 s of quiet still find a dead one).
     * Not thread-safe.
     */
    public static final class WebSocketBuilder {
        private final Client client;
        private final URI uri;
        private final java.util.ArrayList<String> headers = new java.util.ArrayList<>();
        private WebSocket.Options options = WebSocket.Options.defaults().idleTimeout(Duration.ZERO);
        private Duration connectTimeout;

        private WebSocketBuilder(Client client, URI uri) {
            this.client = client;
            this.uri = uri;
            this.connectTimeout = client.config.connectTimeout();
        }

        /**
         * Adds a header field to the handshake request; the handshake's own fields are the client's.
         *
         * @param name a token
         * @param value no CR or LF
         * @return this builder
         */
        public WebSocketBuilder header(String name, String value) {
            headers.add(Objects.requireNonNull(name, "name"));
            headers.add(Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * The sub-protocols offered, most preferred first; the server's choice is
         * {@link WebSocket#subprotocol()}, and one not offered fails the handshake.
         *
         * @param names the sub-protocols
         * @return this builder
         */
        public WebSocketBuilder subprotocols(String... names) {
            options = options.subprotocols(names);
            return this;
        }

        /**
         * Whether permessage-deflate (RFC 7692) is offered; when the server agrees, messages go both
         * ways compressed.
         *
         * @param on whether to offer it
         * @return this builder
         */
        public WebSocketBuilder compression(boolean on) {
            options = options.compression(on);
            return this;
        }

        /**
         * The most the connect and the handshake take together; the client's connect timeout by default.
         *
         * @param timeout zero for no limit
         * @return this builder
         */
        public WebSocketBuilder connectTimeout(Duration timeout) {
            connectTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * The largest message accepted from the server; a larger one closes the socket with 1009.
         *
         * @param bytes at least 1
         * @return this builder
         */
        public WebSocketBuilder maxMessageSize(long bytes) {
            options = options.maxMessageSize(bytes);
            return this;
        }

        /**
         * Every limit, timeout and offer at once (replacing what the other methods set).
         *
         * @param options the socket's options, as a server route's
         * @return this builder
         */
        public WebSocketBuilder options(WebSocket.Options options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * Connects and makes the handshake, never blocking an event loop. On an event loop of a
         * Spindle server (an inline or asynchronous handler, or an endpoint's callback, on the NIO
         * and io_uring servers) the loop opens the socket and drives it beside the connections it
         * serves, and the endpoint's callbacks run on that loop, as a server route's inline
         * endpoint's do: they must not block ({@link WebSocket.Endpoint#blocking} runs them on
         * virtual threads instead). Anywhere else the socket is a blocking one driven by two
         * virtual threads, and the callbacks run on its reader.
         *
         * @param endpoint the socket's callbacks
         * @return completes once a valid 101 arrived and {@link WebSocket.Endpoint#onOpen} ran (on
         *         the loop, or the reader thread), or fails with a {@link ClientException} saying
         *         why: the status of a refusal ({@link ClientException.Reason#HANDSHAKE_FAILED}), an
         *         invalid 101, a connect failure or timeout
         */
        public CompletionStage<WebSocket> connect(WebSocket.Endpoint endpoint) {
            Objects.requireNonNull(endpoint, "endpoint");
            if (client.closed) {
                return CompletableFuture.failedFuture(new ClientException(ClientException.Reason.NOT_SENT, String.valueOf(uri.getAuthority()),
                        "WebSocket " + uri, "not sent: the client is closed", null));
            }
            WebSocketClient.Request request = new WebSocketClient.Request(uri, headers, options, connectTimeout);
            OutboundLoop loop = OutboundLoops.current();
            CompletionStage<WebSocket> opened;
            if (loop != null && uri.getRawAuthority() != null && uri.getHost() != null) {
                Destination destination;
                try {
                    String authority = uri.getRawAuthority();
                    boolean secure = "wss".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
                    // its own entry: WebSockets go straight to their destination, past any proxy
                    destination = client.destinations.computeIfAbsent((secure ? "wss://" : "ws://") + authority,
                            key -> destination(authority, secure, null));
                } catch (IllegalArgumentException e) {
                    return CompletableFuture.failedFuture(new ClientException(ClientException.Reason.NOT_SENT, uri.getRawAuthority(),
                            "WebSocket " + uri, "not sent: " + e.getMessage(), e));
                }
                InetSocketAddress now = destination.addressNow();
                opened = WebSocketClient.connect(request, endpoint, client.tls, loop,
                        now != null ? CompletableFuture.completedFuture(now) : destination.resolve());
            } else {
                opened = WebSocketClient.connect(request, endpoint, client.tls);
            }
            return opened
                    .thenApply(socket -> {
                        // the client's close closes its sockets too (1001), even one that opened as it closed
                        client.webSockets.put(socket, ("wss".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme())
                                ? "wss://" : "ws://") + uri.getRawAuthority());
                        socket.closed().whenComplete((done, failure) -> client.webSockets.remove(socket));
                        if (client.closed) {
                            socket.close(1001, "the client is closing");
                        }
                        return socket;
                    });
        }
    }

    /** A request being completed, then sent once with {@link #send()} or {@link #call()}. Not thread-safe. */
    public static final class RequestBuilder {
        private final Client client;
        private final Destination destination;
        private final ClientRequest request;
        private boolean sent;
        /** This call's own total timeout, or null for the client's. */
        private Duration totalTimeout;

        private RequestBuilder(Client client, Destination destination, ClientRequest request) {
            this.client = client;
            this.destination = destination;
            this.request = request;
        }

        /**
         * Adds a header field (a name given twice is sent twice). {@code Host} defaults to the
         * address's host and port; the framing fields ({@code Content-Length},
         * {@code Transfer-Encoding}, {@code Connection}) are the client's to write.
         *
         * @param name the field name, a token
         * @param value the field value: no CR, LF or other control character but tab
         * @return this request
         * @throws IllegalArgumentException if the name is not a token or is a framing field, or the
         *         value holds a forbidden character
         */
        public RequestBuilder header(String name, String value) {
            request.header(name, value);
            return this;
        }

        /**
         * The body, sent with its {@code Content-Length}. The array is not copied: it must not
         * change until the response arrives.
         *
         * @param body the bytes
         * @return this request
         */
        public RequestBuilder body(byte[] body) {
            request.body(body);
            return this;
        }

        /**
         * The body as UTF-8 text, sent with its {@code Content-Length} (set {@code Content-Type}
         * with {@link #header}).
         *
         * @param text the text
         * @return this request
         */
        public RequestBuilder body(String text) {
            request.body(text.getBytes(StandardCharsets.UTF_8));
            return this;
        }

        /**
         * A body streamed from {@code source} as the connection drains, with demand (one buffer
         * asked for at a time, while less than 64 KiB waits to be written): with
         * {@code Content-Length} when {@code length} is known, else chunked. The source is
         * subscribed to once, when the request's turn comes; nothing is pipelined behind it until
         * it is sent whole, and once it was taken the request is never sent again. A source that
         * fails, or gives another length than announced, fails the request with
         * {@link ClientException.Reason#REQUEST_BODY_FAILED} and closes its connection. A server's
         * streamed request body passes straight through: {@code body(req.bodyPublisher(), req.bodyLength())}.
         *
         * @param source the body's buffers, each read from its position to its limit
         * @param length the exact length in bytes, or -1 when unknown (chunked)
         * @return this request
         * @throws IllegalArgumentException if {@code length} is less than -1
         */
        public RequestBuilder body(Flow.Publisher<ByteBuffer> source, long length) {
            request.body(source, length);
            return this;
        }

        /**
         * A body read from {@code in} as the connection drains, on a virtual thread (never on an
         * event loop), then closed; as {@link #body(Flow.Publisher, long)}.
         *
         * @param in the body's bytes
         * @param length the exact length in bytes, or -1 when unknown (chunked)
         * @return this request
         * @throws IllegalArgumentException if {@code length} is less than -1
         */
        public RequestBuilder body(InputStream in, long length) {
            request.body(new InputStreamSource(in), length);
            return this;
        }

        /**
         * Asks for the response's body streamed instead of buffered: the response completes once its
         * head has arrived, and its body is read as it arrives, of any size, with
         * {@link ClientResponse#bodyStream()}, {@link ClientResponse#bodyPublisher()} or
         * {@link ClientResponse#readBody()}. The connection carries no other request until the body
         * has been read to its end (or it ends: a reader that stops early closes it). The response
         * timeout then bounds the wait for the head, and each wait for more of the body while the
         * reader has room.
         *
         * @return this request
         */
        public RequestBuilder streamResponse() {
            request.streamResponse();
            return this;
        }

        /**
         * A response timeout for this request, instead of the client's
         * ({@link ClientConfig#responseTimeout()}): from the request being written to the last
         * byte of its response.
         *
         * @param timeout zero for none
         * @return this request
         * @throws IllegalArgumentException if {@code timeout} is negative
         */
        public RequestBuilder responseTimeout(Duration timeout) {
            request.responseTimeout(Objects.requireNonNull(timeout, "timeout"));
            return this;
        }

        /**
         * A total timeout for this call alone, instead of the client's
         * ({@link ClientConfig#totalTimeout()}): from {@link #send()} or {@link #call()} to the
         * response (its head, if streamed), whatever it waits for meanwhile.
         *
         * @param timeout the timeout; zero for none
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is negative
         */
        public RequestBuilder totalTimeout(Duration timeout) {
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("the total timeout must not be negative: " + timeout);
            }
            totalTimeout = timeout;
            return this;
        }

        /**
         * Sends the request without waiting. On an event loop it goes through that loop's pool and
         * the stage completes on the loop's thread; elsewhere a virtual thread makes the call.
         *
         * @return completes with the response (any status), or fails with a
         *         {@link ClientException} saying why there is none
         * @throws IllegalStateException if this request was sent already
         */
        public CompletionStage<ClientResponse> send() {
            markSent();
            client.intercept(this);
            CompletionStage<ClientResponse> answer = client.send(destination, request);
            if (client.config.followRedirects() > 0) {
                answer = answer.thenCompose(r -> Redirects.follow(client, this, r, 0));
            }
            return client.config.decompression() ? answer.thenApply(this::decoded) : answer;
        }

        /** The response decoded ({@link ClientConfig#decompression(boolean)}); a failure as a stage's. */
        private ClientResponse decoded(ClientResponse r) {
            try {
                return Decompression.decode(r, client.config.maxResponseBodySize(), destination.authority(), request.describe());
            } catch (ClientException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }

        /**
         * Sends the request and waits for the response on the calling thread. For blocking
         * handlers and code outside any server; on an event loop use {@link #send()}.
         *
         * @return the response (any status)
         * @throws ClientException if there is no response: {@link ClientException#reason()} says why
         * @throws InterruptedException if the thread was interrupted while waiting (the connection is closed)
         * @throws IllegalStateException if called on an event loop's thread, which it would block, or
         *         if this request was sent already
         */
        public ClientResponse call() throws ClientException, InterruptedException {
            markSent();
            client.intercept(this);
            ClientResponse answer = client.call(destination, request);
            RequestBuilder from = this;
            for (int hops = 0; hops < client.config.followRedirects(); hops++) {
                RequestBuilder next = Redirects.next(client, from, answer);
                if (next == null) {
                    break;
                }
                Redirects.discard(answer);
                next.markSent();
                client.intercept(next);
                answer = client.call(next.destination, next.request);
                from = next;
            }
            return client.config.decompression()
                    ? Decompression.decode(answer, client.config.maxResponseBodySize(), destination.authority(), request.describe())
                    : answer;
        }

        /** {@return the address it goes to, without fragment} */
        String address() {
            return (destination.secure() ? "https://" : "http://") + destination.authority() + request.target();
        }

        /** {@return the method, such as {@code GET}} */
        public String method() {
            return request.method();
        }

        /** {@return where it goes: the address's authority, such as {@code 127.0.0.1:8081} or {@code example.test}} */
        public String authority() {
            return destination.authority();
        }

        /** {@return the request line's target: the address's path and query, such as {@code /users/7?full=1}} */
        public String target() {
            return request.target();
        }

        Destination destination() {
            return destination;
        }

        ClientRequest clientRequest() {
            return request;
        }

        void markSent() {
            if (sent) {
                throw new IllegalStateException("this request was sent already: build a new one");
            }
            sent = true;
            long total = (totalTimeout != null ? totalTimeout : client.config.totalTimeout()).toNanos();
            if (total > 0 && !request.hasDeadline()) {
                request.deadline(System.nanoTime() + total, total);
            }
        }
    }
}
