// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static dev.spindle.conformance.Bodies.pattern;
import static dev.spindle.conformance.Bodies.summary;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientException;
import dev.spindle.core.ClientPool;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.TestTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spindle's {@link Client} used by handlers of the server under test, calling another Spindle
 * server (behind a proxy that counts the connections it accepts) and raw servers that misbehave or
 * send odd but valid and invalid responses (a table of cases, each through both kinds of handler).
 * Asynchronous handlers call with {@code send()}, blocking ones with {@code call()}; on an
 * event-loop strategy the asynchronous call must run on the handler's own loop thread, through its
 * pool. Each strategy module subclasses it and implements {@link #newServer}.
 */
@Timeout(60)
public abstract class ClientSuite {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** Per loop and destination: small, so the limit and its queue are reached by a few requests. */
    private static final int MAX_CONNECTIONS = 2;
    private static final int MAX_WAITING = 2;
    /** The {@code faults} client's largest response body. */
    private static final int FAULT_BODY_LIMIT = 64;
    /** A raw server's answer to a request after the first. */
    private static final Reply SECOND = Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond");
    /** A response no request asked for, sent right after one that was. */
    private static final String SMUGGLED = "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled";

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Calls whose completion ran on another thread than their handler, though it ran on an event loop. */
    private final Queue<String> threadMismatches = new ConcurrentLinkedQueue<>();
    private final AtomicInteger asyncCalls = new AtomicInteger();
    private Client client;
    /** One connection per loop and destination, up to 8 requests pipelined on it. */
    private Client pipelining;
    /** For bodies of many MiB streamed both ways: a long response timeout. */
    private Client streaming;
    /** For the raw servers' responses: a small body limit, so a few bytes exceed it. */
    private Client faults;
    /** One connection per loop and destination, and a total timeout on every call. */
    private Client bounded;
    private CountingProxy downstream;
    private HttpServer caller;

    /**
     * A server of the strategy under test, not started.
     *
     * @param config its configuration
     * @param router its routes
     * @return the server
     */
    protected abstract HttpServer newServer(ServerConfig config, Router router);

    /**
     * Whether the strategy runs handlers on event loops, where the client sends through the
     * loop's pool (so the pool's limit and queue apply, and calls complete on the handler's thread).
     *
     * @return true for the event-loop strategies
     */
    protected abstract boolean handlersOnEventLoop();

    /** How the suite's clients reach the downstreams: the same cases over each. */
    protected enum Wire {
        /** HTTP/1.1 over TCP. */
        PLAIN,
        /** HTTP/2 by prior knowledge over TCP (h2c): the raw servers' cases, which answer in HTTP/1.1 bytes, do not apply. */
        H2C,
        /** HTTP/1.1 over TLS: the Spindle downstreams and the raw servers speak TLS with the test certificate, which the clients trust. */
        TLS,
        /**
         * TLS with ALPN offering h2 then http/1.1: the Spindle downstreams choose h2, the raw servers
         * (which offer no ALPN) HTTP/1.1, so the raw cases also show the fallback.
         */
        H2_TLS
    }

    /** {@return how the suite's clients reach the downstreams; HTTP/1.1 over TCP unless a subclass says otherwise} */
    protected Wire wire() {
        return Wire.PLAIN;
    }

    /** {@return what every client of the suite starts from, for its wire} */
    private ClientConfig config() {
        ClientConfig defaults = ClientConfig.defaults();
        return switch (wire()) {
            case PLAIN -> defaults;
            case H2C -> defaults.h2cPriorKnowledge(true);
            case TLS -> defaults.trustStore(TestTls.localhost().trustStore(), TestTls.PASSWORD.toCharArray());
            case H2_TLS -> defaults.trustStore(TestTls.localhost().trustStore(), TestTls.PASSWORD.toCharArray()).http2(true);
        };
    }

    private boolean overTls() {
        return wire() == Wire.TLS || wire() == Wire.H2_TLS;
    }

    /** {@return whether the raw servers cannot be reached: h2c by prior knowledge, which they do not speak} */
    private boolean overHttp2() {
        return wire() == Wire.H2C;
    }

    /** {@return whether a Spindle downstream's requests share one connection as HTTP/2 streams} */
    private boolean multiplexed() {
        return wire() == Wire.H2C || wire() == Wire.H2_TLS;
    }

    /** {@return the origin of a server of the suite's on {@code port}, in the wire's scheme} */
    private String origin(Object port) {
        return (overTls() ? "https" : "http") + "://127.0.0.1:" + port;
    }

    /** A Spindle downstream of the strategy under test, started, speaking TLS when the wire does. */
    private HttpServer downstreamServer(ServerConfig config) throws IOException {
        HttpServer server = newServer(overTls() ? config.tls(TestTls.serverTls()) : config, downstreamRoutes()).start();
        resources.add(server::close);
        return server;
    }

    private FaultServer faultServer(FaultServer.Fault fault) throws IOException {
        return new FaultServer(listener(), fault);
    }

    private FaultServer faultServer(List<Reply> replies) throws IOException {
        return new FaultServer(listener(), replies);
    }

    /** A raw server's listening socket: TLS with the test certificate when the wire is. */
    private ServerSocket listener() throws IOException {
        return overTls()
                ? RawSockets.serverContext(TestTls.keyStore()).getServerSocketFactory().createServerSocket(0, 50, LOOPBACK)
                : new ServerSocket(0, 50, LOOPBACK);
    }

    @BeforeEach
    void start() throws IOException {
        client = Client.create(config().responseTimeout(Duration.ofMillis(1500))
                .maxConnectionsPerDestination(MAX_CONNECTIONS).maxWaitingRequests(MAX_WAITING));
        resources.add(client);
        pipelining = Client.create(config().responseTimeout(Duration.ofSeconds(5))
                .maxConnectionsPerDestination(1).maxPipelined(8));
        resources.add(pipelining);
        // bodies of many MiB through a busy machine: a wait for more may be long, never 10 s
        streaming = Client.create(config().responseTimeout(Duration.ofSeconds(10)));
        resources.add(streaming);
        faults = Client.create(config().responseTimeout(Duration.ofSeconds(3))
                .maxResponseBodySize(FAULT_BODY_LIMIT));
        resources.add(faults);
        bounded = Client.create(config().totalTimeout(Duration.ofMillis(400)).maxConnectionsPerDestination(1));
        resources.add(bounded);
        HttpServer target = downstreamServer(ServerConfig.defaults().port(0));
        downstream = new CountingProxy(target.port());
        resources.add(downstream);
        caller = newServer(ServerConfig.defaults().port(0).workers(1), callerRoutes()).start();
        resources.add(caller::close);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private static Router downstreamRoutes() {
        return Router.builder()
                .get("/delay/{ms}", Handler.async((req, res) -> {
                    int ms = Integer.parseInt(req.pathParam("ms"));
                    return CompletableFuture.runAsync(() -> res.text("slept " + ms),
                            CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS));
                }))
                .post("/count", Bodies.count())
                .get("/large/{bytes}", Bodies.large())
                .build();
    }

    private Router callerRoutes() {
        return Router.builder()
                .get("/hello", (req, res) -> res.text("hello"))
                .get("/call/{port}/{ms}", Handler.async((req, res) -> {
                    asyncCalls.incrementAndGet();
                    Thread handler = Thread.currentThread();
                    return client.get(address(req.pathParam("port"), req.pathParam("ms"))).send().handle((answer, failure) -> {
                        if (handlersOnEventLoop() && Thread.currentThread() != handler) {
                            threadMismatches.add(handler.getName() + " -> " + Thread.currentThread().getName());
                        }
                        answer(res, answer, failure);
                        return null;
                    });
                }))
                .get("/pipelined/{port}", Handler.async((req, res) -> {
                    // the later requests take less time: a server that answered out of order would be caught
                    List<CompletableFuture<String>> answers = new ArrayList<>();
                    for (int ms = 300; ms >= 0; ms -= 60) {
                        answers.add(pipelining.get(address(req.pathParam("port"), Integer.toString(ms))).send()
                                .thenApply(ClientResponse::bodyText).toCompletableFuture());
                    }
                    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).handle((done, failure) -> {
                        if (failure != null) {
                            answer(res, null, failure.getCause() != null ? failure.getCause() : failure);
                        } else {
                            res.text(String.join(",", answers.stream().map(CompletableFuture::join).toList()));
                        }
                        return null;
                    });
                }))
                .get("/raw/{method}/{port}", Handler.async((req, res) -> {
                    Thread handler = Thread.currentThread();
                    return faults.request(req.pathParam("method"), rawAddress(req.pathParam("port"))).send().handle((answer, failure) -> {
                        if (handlersOnEventLoop() && Thread.currentThread() != handler) {
                            threadMismatches.add(handler.getName() + " -> " + Thread.currentThread().getName());
                        }
                        res.text(outcome(answer, failure));
                        return null;
                    });
                }))
                .get("/raw-blocking/{method}/{port}", Handler.blocking((req, res) -> {
                    try {
                        res.text(outcome(faults.request(req.pathParam("method"), rawAddress(req.pathParam("port"))).call(), null));
                    } catch (ClientException e) {
                        res.text(outcome(null, e));
                    }
                }))
                // the downstream's body streams through to the caller's client: read as the client drains
                .get("/stream/{port}/{bytes}", Handler.async((req, res) -> streaming.get(large(req.pathParam("port"), req.pathParam("bytes")))
                        .streamResponse().send().handle((answer, failure) -> {
                            if (failure != null) {
                                answer(res, null, failure);
                            } else {
                                res.status(answer.status()).body(answer.bodyStream(), -1);
                            }
                            return null;
                        })))
                // the caller's own request body streams on to the downstream as it arrives
                .post("/upload/{port}", Handler.async((req, res) -> streaming.post(origin(req.pathParam("port")) + "/count")
                        .body(req.bodyPublisher(), req.bodyLength()).send().handle((answer, failure) -> {
                            answer(res, answer, failure);
                            return null;
                        })))
                .post("/upload-blocking/{port}", Handler.blocking((req, res) -> {
                    try {
                        answer(res, streaming.post(origin(req.pathParam("port")) + "/count")
                                .body(req.bodyStream(), req.bodyLength()).call(), null);
                    } catch (ClientException e) {
                        answer(res, null, e);
                    }
                }))
                .get("/stream-blocking/{port}/{bytes}", Handler.blocking((req, res) -> {
                    try {
                        ClientResponse answer = streaming.get(large(req.pathParam("port"), req.pathParam("bytes"))).streamResponse().call();
                        res.status(answer.status()).body(answer.bodyStream(), -1);
                    } catch (ClientException e) {
                        answer(res, null, e);
                    }
                }))
                // two calls at once on one connection per destination: the second waits for it (in the loop's queue, or off the loops in its turn)
                .get("/bounded/{port}/{ms}", Handler.async((req, res) -> {
                    long start = System.nanoTime();
                    List<CompletableFuture<String>> outcomes = new ArrayList<>();
                    for (int i = 0; i < 2; i++) {
                        outcomes.add(bounded.get(address(req.pathParam("port"), req.pathParam("ms"))).send()
                                .handle(ClientSuite::outcome).toCompletableFuture());
                    }
                    return CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).thenRun(() -> res.text(
                            outcomes.get(0).join() + "," + outcomes.get(1).join() + " in " + (System.nanoTime() - start) / 1_000_000));
                }))
                .get("/bounded-blocking/{port}/{ms}", Handler.blocking((req, res) -> {
                    try {
                        res.text(outcome(bounded.get(address(req.pathParam("port"), req.pathParam("ms"))).call(), null));
                    } catch (ClientException e) {
                        res.text(outcome(null, e));
                    }
                }))
                .get("/call-blocking/{port}/{ms}", Handler.blocking((req, res) -> {
                    try {
                        answer(res, client.get(address(req.pathParam("port"), req.pathParam("ms"))).call(), null);
                    } catch (ClientException e) {
                        answer(res, null, e);
                    }
                }))
                .build();
    }

    private String large(String port, String bytes) {
        return origin(port) + "/large/" + bytes;
    }

    private String address(String port, String ms) {
        return origin(port) + "/delay/" + ms;
    }

    private String rawAddress(String port) {
        return origin(port) + "/raw";
    }

    /**
     * What the handler saw, as text: {@code status [body] header names} and any trailers as
     * {@code name:value}; or the client's reason.
     */
    private static String outcome(ClientResponse answer, Throwable failure) {
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            return cause instanceof ClientException e ? e.reason().name() : cause.toString();
        }
        StringBuilder text = new StringBuilder().append(answer.status()).append(" [").append(answer.bodyText()).append(']');
        for (int i = 0; i < answer.headerCount(); i++) {
            text.append(i == 0 ? " " : ",").append(answer.headerName(i));
        }
        for (int i = 0; i < answer.trailerCount(); i++) {
            text.append(i == 0 ? " trailers " : ",").append(answer.trailerName(i)).append(':').append(answer.trailerValue(i));
        }
        return text.toString();
    }

    /** The downstream's answer as the caller's, or 502 naming the client's reason. */
    private static void answer(Response res, ClientResponse answer, Throwable failure) {
        if (failure == null) {
            res.status(answer.status()).text(answer.bodyText());
        } else if (failure instanceof ClientException e) {
            res.status(502).text(e.reason().name());
        } else {
            res.status(500).text(failure.toString());
        }
    }

    private RawResponse get(String path) throws IOException {
        try (RawConnection c = new RawConnection(caller.port())) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
        }
    }

    private void assertCallerStillServes() throws IOException {
        assertThat(get("/hello").bodyText()).isEqualTo("hello");
        RawResponse ok = get("/call/" + downstream.port() + "/0");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.bodyText()).isEqualTo("slept 0");
    }

    @Test
    void anAsynchronousHandlerCallsTheDownstreamOnItsOwnThreadOverOneKeptAliveConnection() throws IOException {
        for (int i = 0; i < 5; i++) {
            RawResponse r = get("/call/" + downstream.port() + "/" + i);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("slept " + i);
        }
        assertThat(asyncCalls).hasValue(5);
        assertThat(threadMismatches).as("calls completed on their handler's loop thread").isEmpty();
        assertThat(downstream.accepted()).as("one connection, reused").hasValue(1);
    }

    @Test
    void pipelinedAnswersAreReadInTheOrderOfTheirRequests() throws IOException {
        assumeFalse(overHttp2(), "its fault server answers in raw HTTP/1.1 (over HTTP/2 requests are streams, not pipelined)");
        assumeTrue(handlersOnEventLoop(), "only an event loop's pool pipelines");
        // a server that answers only once all six requests are in: they must have been pipelined on one connection
        try (FaultServer server = faultServer(FaultServer.Fault.AFTER_SIX)) {
            RawResponse r = get("/pipelined/" + server.port());
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).as("each request got its own answer, from six in one read")
                    .isEqualTo("/delay/300,/delay/240,/delay/180,/delay/120,/delay/60,/delay/0");
        }
        RawResponse real = get("/pipelined/" + downstream.port());
        assertThat(real.bodyText()).as("a Spindle server answers pipelined requests in order")
                .isEqualTo("slept 300,slept 240,slept 180,slept 120,slept 60,slept 0");
        assertThat(downstream.accepted()).as("one connection, the requests pipelined on it").hasValue(1);
    }

    /**
     * A body larger than the client's buffered limit passes through whole, and each body's end
     * frees its connection: several in a row on one connection (a driver that went on reading
     * after a body ended once hung the next call here).
     */
    @Test
    void aStreamedResponsePassesThroughTheCallerAndFreesItsConnectionAtItsEnd() throws IOException {
        int size = 9 << 20;
        byte[] expected = pattern(size);
        for (String route : List.of("/stream/", "/stream-blocking/")) {
            for (int i = 0; i < 5; i++) {
                RawResponse r = get(route + downstream.port() + "/" + size);
                assertThat(r.status()).as(route).isEqualTo(200);
                assertThat(r.body()).as(route + ": the body, whole and in order").isEqualTo(expected);
            }
        }
        // one connection per pool (off a loop both routes call blocking, through one pool)
        assertThat(downstream.accepted()).as("each call reused the connection the body before freed").hasValue(handlersOnEventLoop() ? 2 : 1);
        assertCallerStillServes();
    }

    /**
     * A request body larger than any buffer passes through the caller to the downstream as it
     * arrives, with its length or chunked as it came, and the connection is reused after each.
     */
    @Test
    void aStreamedRequestBodyPassesThroughTheCallerToTheDownstream() throws IOException {
        int size = 10 << 20;
        byte[] body = pattern(size);
        String expected = summary(new java.io.ByteArrayInputStream(body));
        for (String route : List.of("/upload/", "/upload-blocking/")) {
            for (boolean chunked : List.of(false, true)) {
                String head = "POST " + route + downstream.port() + " HTTP/1.1\r\nHost: x\r\n"
                        + (chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Content-Length: " + size + "\r\n\r\n");
                try (RawConnection c = new RawConnection(caller.port())) {
                    c.send(head);
                    if (chunked) {
                        for (int at = 0; at < size; at += 1 << 20) {
                            c.send(Integer.toHexString(1 << 20) + "\r\n");
                            c.send(java.util.Arrays.copyOfRange(body, at, at + (1 << 20)));
                            c.send("\r\n");
                        }
                        c.send("0\r\n\r\n");
                    } else {
                        c.send(body);
                    }
                    RawResponse r = c.read();
                    assertThat(r.bodyText()).as(route + (chunked ? ", chunked" : ", with its length")).isEqualTo(expected);
                }
            }
        }
        assertThat(downstream.accepted()).as("each upload reused the connection the one before freed").hasValue(handlersOnEventLoop() ? 2 : 1);
        assertCallerStillServes();
    }

    @Test
    void aBlockingHandlerCallsOverOneKeptAliveConnection() throws IOException {
        for (int i = 0; i < 3; i++) {
            RawResponse r = get("/call-blocking/" + downstream.port() + "/" + i);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("slept " + i);
        }
        assertThat(downstream.accepted()).as("one connection, reused").hasValue(1);
        assertThat(get("/call-blocking/" + closedPort() + "/0").bodyText()).isEqualTo("CONNECT_FAILED");
    }

    @Test
    void atMostTheLimitPerDestinationAreOpenAndABoundedNumberWait() throws Exception {
        assumeFalse(multiplexed(), "over HTTP/2 the requests share one connection (Http2ClientSuite counts them)");
        // on a loop its pool's limit and queue; off the loops the blocking path's, shared by every thread
        List<CompletableFuture<RawResponse>> calls = new ArrayList<>();
        // two in flight, two waiting, one refused: all arrive well before the first answer
        for (int i = 0; i < MAX_CONNECTIONS + MAX_WAITING + 1; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return get("/call/" + downstream.port() + "/1000");
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, r -> Thread.ofVirtual().start(r)));
        }
        String destination = origin(downstream.port());
        ClientPool during = awaitPool(destination, p -> p.waiting() == MAX_WAITING);
        assertThat(during).as("while two are in flight and two wait").isEqualTo(new ClientPool(destination, MAX_CONNECTIONS, 0, MAX_WAITING));
        List<String> bodies = new ArrayList<>();
        for (CompletableFuture<RawResponse> call : calls) {
            bodies.add(call.get(20, TimeUnit.SECONDS).bodyText());
        }
        assertThat(bodies).filteredOn("slept 1000"::equals).hasSize(MAX_CONNECTIONS + MAX_WAITING);
        assertThat(bodies).filteredOn("POOL_FULL"::equals).hasSize(1);
        assertThat(downstream.accepted()).as("no more connections than the limit").hasValue(MAX_CONNECTIONS);
        assertThat(awaitPool(destination, p -> p.idle() == MAX_CONNECTIONS)).as("after")
                .isEqualTo(new ClientPool(destination, MAX_CONNECTIONS, MAX_CONNECTIONS, 0));
        assertThat(threadMismatches).isEmpty();
        assertCallerStillServes();
    }

    /** The client's pool for {@code destination} once {@code until} holds for it (at most 10 s), as {@link Client#pools()} says. */
    private ClientPool awaitPool(String destination, java.util.function.Predicate<ClientPool> until) throws InterruptedException {
        ClientPool last = null;
        for (int i = 0; i < 1000; i++) {
            last = client.pools().stream().filter(p -> p.destination().equals(destination)).findFirst().orElse(null);
            if (last != null && until.test(last)) {
                return last;
            }
            Thread.sleep(10);
        }
        return last;
    }

    @Test
    void theBlockingPathsConnectionsAreCountedInUseAndIdle() throws Exception {
        String destination = origin(downstream.port());
        assertThat(get("/call-blocking/" + downstream.port() + "/0").bodyText()).isEqualTo("slept 0");
        assertThat(awaitPool(destination, p -> p.idle() >= 1)).as("its kept-alive connection")
                .isEqualTo(new ClientPool(destination, 1, 1, 0));
    }

    @Test
    void aConnectionTheDownstreamClosedWhileIdleIsReplaced() throws Exception {
        HttpServer brief = downstreamServer(ServerConfig.defaults().port(0).idleTimeout(Duration.ofMillis(200)));
        CountingProxy counted = new CountingProxy(brief.port());
        resources.add(counted);
        for (String route : List.of("/call/", "/call-blocking/")) {
            // the routes may share a pool (off a loop both call blocking): the one before idles out too
            Thread.sleep(600);
            assertThat(get(route + counted.port() + "/0").bodyText()).isEqualTo("slept 0");
            // the downstream closes the kept-alive connection meanwhile
            Thread.sleep(600);
            assertThat(get(route + counted.port() + "/1").bodyText()).as(route).isEqualTo("slept 1");
        }
        assertThat(counted.accepted()).as("a new connection after each idle close").hasValue(4);
    }

    @Test
    void aRefusedConnectIsMappedByTheHandler() throws IOException {
        RawResponse r = get("/call/" + closedPort() + "/0");
        assertThat(r.status()).isEqualTo(502);
        assertThat(r.bodyText()).isEqualTo("CONNECT_FAILED");
        assertCallerStillServes();
    }

    @Test
    void aDownstreamThatNeverAnswersTimesOut() throws Exception {
        try (FaultServer silent = faultServer(FaultServer.Fault.SILENT)) {
            CompletableFuture<RawResponse> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return get("/call/" + silent.port() + "/0");
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, r -> Thread.ofVirtual().start(r));
            // while that call waits, the caller (one loop) serves others
            assertThat(get("/hello").bodyText()).isEqualTo("hello");
            assertThat(waiting).isNotDone();
            assertThat(waiting.get(10, TimeUnit.SECONDS).bodyText()).isEqualTo("RESPONSE_TIMEOUT");
            assertThat(get("/call-blocking/" + silent.port() + "/0").bodyText()).isEqualTo("RESPONSE_TIMEOUT");
        }
        assertCallerStillServes();
    }

    @Test
    void aTotalTimeoutBoundsTheWholeCallWhereverItWaits() throws IOException {
        String answer = get("/bounded/" + downstream.port() + "/2000").bodyText();
        assertThat(answer).as("a call sent and one waiting for the connection").startsWith("TOTAL_TIMEOUT,TOTAL_TIMEOUT in ");
        assertThat(Long.parseLong(answer.substring(answer.lastIndexOf(' ') + 1))).as("ms until both failed").isLessThan(1500);
        assertThat(get("/bounded-blocking/" + downstream.port() + "/2000").bodyText()).isEqualTo("TOTAL_TIMEOUT");
        assertThat(get("/bounded/" + downstream.port() + "/0").bodyText()).as("within the timeout").startsWith("200 [slept 0]");
        assertCallerStillServes();
    }

    @Test
    void aDownstreamDyingMidBodyClosesTheCall() throws IOException {
        assumeFalse(overHttp2(), "its fault server answers in raw HTTP/1.1");
        try (FaultServer dying = faultServer(FaultServer.Fault.CUT_BODY)) {
            assertThat(get("/call/" + dying.port() + "/0").bodyText()).isEqualTo("CONNECTION_CLOSED");
            assertThat(get("/call-blocking/" + dying.port() + "/0").bodyText()).isEqualTo("CONNECTION_CLOSED");
        }
        assertCallerStillServes();
    }

    @Test
    void garbageIsAMalformedResponse() throws IOException {
        try (FaultServer garbage = faultServer(FaultServer.Fault.GARBAGE)) {
            assertThat(get("/call/" + garbage.port() + "/0").bodyText()).isEqualTo("MALFORMED_RESPONSE");
            assertThat(get("/call-blocking/" + garbage.port() + "/0").bodyText()).isEqualTo("MALFORMED_RESPONSE");
        }
        assertCallerStillServes();
    }

    @Test
    void oddButValidResponsesReachTheHandler() throws Exception {
        assumeFalse(overHttp2(), "its cases are raw HTTP/1.1 bytes");
        assertRawCases(List.of(
                new RawCase("100 Continue before the response", "GET",
                        replies(Reply.of("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")),
                        twice("200 [hello] Content-Length"), 1),
                new RawCase("103 Early Hints with fields, then 100, before the response", "GET",
                        replies(Reply.of("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\nLink: </app.js>; rel=preload\r\n\r\n"
                                + "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Final: yes\r\n\r\nhello")),
                        twice("200 [hello] Content-Length,X-Final"), 1),
                new RawCase("chunked with chunk extensions and trailers", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value;flag\r\nhello\r\n"
                                + "6 ; x=\"a;b\"\r\n world\r\n0;last\r\nChecksum: abc\r\nX-Trailer: t\r\n\r\n")),
                        twice("200 [hello world] Transfer-Encoding trailers Checksum:abc,X-Trailer:t"), 1),
                new RawCase("chunked with upper-case hex sizes and leading zeros", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n000A\r\n0123456789\r\n00\r\n\r\n")),
                        twice("200 [0123456789] Transfer-Encoding"), 1),
                new RawCase("a body delimited by the close (no Content-Length, not chunked)", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the close").thenClose()),
                        twice("200 [until the close] Content-Type"), 2),
                new RawCase("a byte at a time, 1 ms apart: interim response, then chunked", "GET",
                        replies(Reply.of("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "4\r\nbyte\r\n5\r\n by b\r\n3\r\nyte\r\n0\r\n\r\n").trickle()),
                        twice("200 [byte by byte] Transfer-Encoding"), 1),
                new RawCase("a byte at a time, 1 ms apart: Content-Length", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslow").trickle()),
                        twice("200 [slow] Content-Length"), 1),
                new RawCase("HEAD answered with a Content-Length and no body", "HEAD",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")),
                        twice("200 [] Content-Length"), 1),
                new RawCase("HEAD answered as chunked, with no body", "HEAD",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")),
                        twice("200 [] Transfer-Encoding"), 1),
                new RawCase("204 without a body, then a second request on the connection", "GET",
                        replies(Reply.of("HTTP/1.1 204 No Content\r\nX-Reason: none\r\n\r\n"), SECOND),
                        List.of("204 [] X-Reason", "200 [second] Content-Length"), 1),
                new RawCase("304 announcing a Content-Length, without a body, then a second request", "GET",
                        replies(Reply.of("HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\nETag: \"v1\"\r\n\r\n"), SECOND),
                        List.of("304 [] Content-Length,ETag", "200 [second] Content-Length"), 1),
                new RawCase("Connection: close (the server keeps the socket open): the next call opens a new connection", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nfirst")),
                        twice("200 [first] Connection,Content-Length"), 2),
                new RawCase("HTTP/1.0 without keep-alive: not reused", "GET",
                        replies(Reply.of("HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nold!")),
                        twice("200 [old!] Content-Length"), 2),
                new RawCase("HTTP/1.0 with Connection: keep-alive and a length: reused", "GET",
                        replies(Reply.of("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nold!")),
                        twice("200 [old!] Connection,Content-Length"), 1),
                new RawCase("the same Content-Length repeated and listed", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5, 5\r\n\r\nhello")),
                        twice("200 [hello] Content-Length,Content-Length"), 1),
                new RawCase("an empty reason phrase, lower-case names, no space after the colon, tabs around a value", "GET",
                        replies(Reply.of("HTTP/1.1 200 \r\ncontent-length:5\r\nX-Tab:\tv\t\r\n\r\nhello")),
                        twice("200 [hello] content-length,X-Tab"), 1)));
    }

    @Test
    void invalidResponsesFailWithTheirReason() throws Exception {
        assumeFalse(overHttp2(), "its cases are raw HTTP/1.1 bytes (HTTP/2 faults: Http2ClientSuite)");
        String bigField = "X-Big: " + "a".repeat(33 * 1024) + "\r\n";
        StringBuilder manyFields = new StringBuilder();
        for (int i = 0; i <= 128; i++) {
            manyFields.append("X-").append(i).append(": v\r\n");
        }
        String overLimit = "b".repeat(FAULT_BODY_LIMIT + 1);
        assertRawCases(List.of(
                invalid("two different Content-Length values", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
                        "MALFORMED_RESPONSE"),
                invalid("a Content-Length list with different values", "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello",
                        "MALFORMED_RESPONSE"),
                invalid("a bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
                        "MALFORMED_RESPONSE"),
                invalid("chunk data longer than its size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello!\r\n0\r\n\r\n",
                        "MALFORMED_RESPONSE"),
                invalid("a two-digit status code", "HTTP/1.1 20 OK\r\nContent-Length: 5\r\n\r\nhello", "MALFORMED_RESPONSE"),
                invalid("status code 600", "HTTP/1.1 600 Odd\r\nContent-Length: 5\r\n\r\nhello", "MALFORMED_RESPONSE"),
                invalid("101 Switching Protocols that no request asked for", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n",
                        "MALFORMED_RESPONSE"),
                // RFC 9112 5.2 lets a client unfold it; this client refuses it, as its parser documents
                invalid("obs-fold", "HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 5\r\n\r\nhello", "MALFORMED_RESPONSE"),
                invalid("bare LF line endings", "HTTP/1.1 200 OK\nContent-Length: 5\n\nhello", "MALFORMED_RESPONSE"),
                invalid("a header section over 32 KiB", "HTTP/1.1 200 OK\r\n" + bigField + "Content-Length: 5\r\n\r\nhello",
                        "MALFORMED_RESPONSE"),
                invalid("more than 128 header fields", "HTTP/1.1 200 OK\r\n" + manyFields + "Content-Length: 5\r\n\r\nhello",
                        "MALFORMED_RESPONSE"),
                invalid("Transfer-Encoding in an HTTP/1.0 response",
                        "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", "MALFORMED_RESPONSE"),
                invalid("a Content-Length over the client's body limit",
                        "HTTP/1.1 200 OK\r\nContent-Length: " + overLimit.length() + "\r\n\r\n" + overLimit, "BODY_TOO_LARGE"),
                invalid("a chunked body over the client's body limit", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "20\r\n" + overLimit.substring(0, 32) + "\r\n21\r\n" + overLimit.substring(32) + "\r\n0\r\n\r\n", "BODY_TOO_LARGE"),
                new RawCase("a body delimited by the close, over the client's body limit", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\n\r\n" + overLimit).thenClose()), List.of("BODY_TOO_LARGE"), 0),
                new RawCase("the server closes in the middle of the head", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Le").thenClose()), List.of("CONNECTION_CLOSED"), 0),
                new RawCase("the server closes before any byte of the response", "GET",
                        replies(Reply.of("").thenClose()), List.of("CONNECTION_CLOSED"), 0),
                new RawCase("a kept-alive connection closed unanswered as a GET arrives: sent again, on a new one", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"), Reply.of("").thenClose(), SECOND),
                        List.of("200 [first] Content-Length", "200 [second] Content-Length"), 2),
                new RawCase("the same for a POST: not idempotent, not sent again", "POST",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"), Reply.of("").thenClose(), SECOND),
                        List.of("200 [first] Content-Length", "CONNECTION_CLOSED"), 1),
                // RFC 9112 6.3: Transfer-Encoding wins; the message may be smuggling, so the connection is not reused
                new RawCase("Content-Length and chunked: chunked wins, the connection is not reused", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")),
                        twice("200 [hello] Content-Length,Transfer-Encoding"), 2),
                new RawCase("a second response in the same write, unasked for: the first stands, the connection is dropped", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" + SMUGGLED)),
                        twice("200 [hello] Content-Length"), 2),
                new RawCase("a response unasked for, arriving while the connection is idle: the connection is dropped", "GET",
                        replies(Reply.of("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello").thenLater(SMUGGLED)),
                        twice("200 [hello] Content-Length"), 2)));
    }

    private static List<Reply> replies(Reply... replies) {
        return List.of(replies);
    }

    private static List<String> twice(String outcome) {
        return List.of(outcome, outcome);
    }

    private static RawCase invalid(String name, String response, String reason) {
        return new RawCase(name, "GET", replies(Reply.of(response)), List.of(reason), 1);
    }

    /**
     * Runs each case through the asynchronous and the blocking route, each against a raw server of
     * its own, and compares all outcomes at once; then the caller must still serve.
     */
    private void assertRawCases(List<RawCase> cases) throws Exception {
        // over H2_TLS the blocking path's first call to a TLS destination that does not choose h2 goes on a connection
        // of its HTTP/2 part, which the destination's later calls do not use: the cases count connections and
        // replies per request, so they run only through a loop's pool (the fallback itself: Http2ClientSuite)
        List<String> routes = wire() != Wire.H2_TLS ? List.of("/raw/", "/raw-blocking/") : handlersOnEventLoop() ? List.of("/raw/") : List.of();
        assumeFalse(routes.isEmpty(), "over H2_TLS the blocking path's fallback takes a connection more (see above)");
        List<String> mismatches = new ArrayList<>();
        for (String route : routes) {
            for (RawCase c : cases) {
                try (FaultServer server = faultServer(c.replies())) {
                    List<String> outcomes = new ArrayList<>();
                    boolean late = c.replies().stream().anyMatch(r -> !r.late().isEmpty());
                    for (int i = 0; i < c.outcomes().size(); i++) {
                        if (i > 0 && late) {
                            // the late bytes arrive while the connection is idle, not as the answer to the next request
                            Thread.sleep(4 * Reply.LATE_MILLIS);
                        }
                        outcomes.add(get(route + c.method() + "/" + server.port()).bodyText());
                    }
                    int connections = server.accepted();
                    if (!outcomes.equals(c.outcomes()) || c.connections() > 0 && connections != c.connections()) {
                        mismatches.add(route + " " + c.name() + ": expected " + c.outcomes() + " over " + c.connections()
                                + " connection(s), got " + outcomes + " over " + connections);
                    }
                }
            }
        }
        assertThat(mismatches).as("cases whose outcome differs").isEmpty();
        assertThat(threadMismatches).as("calls completed on their handler's loop thread").isEmpty();
        assertCallerStillServes();
    }

    @Test
    void codeOutsideAnyServerCallsOnItsOwnThreadAndReusesTheConnection() throws Exception {
        String base = origin(downstream.port());
        for (int i = 0; i < 3; i++) {
            assertThat(client.get(base + "/delay/" + i).call().bodyText()).isEqualTo("slept " + i);
        }
        // the delay lets the dependent action be attached before the response completes the stage
        CompletableFuture<Thread> completedOn = client.get(base + "/delay/200").send().thenApply(r -> Thread.currentThread())
                .toCompletableFuture();
        assertThat(completedOn.get(10, TimeUnit.SECONDS).isVirtual()).as("send() off a loop runs on a virtual thread").isTrue();
        assertThat(downstream.accepted()).as("one connection, reused").hasValue(1);
        assertThatThrownBy(() -> client.get(origin(closedPort()) + "/x").call())
                .isInstanceOfSatisfying(ClientException.class, e -> assertThat(e.reason()).isEqualTo(ClientException.Reason.CONNECT_FAILED));
    }

    @Test
    void aClosedClientFailsItsRequests() throws Exception {
        assertThat(get("/call/" + downstream.port() + "/0").status()).isEqualTo(200);
        client.close();
        assertThat(get("/call/" + downstream.port() + "/0").bodyText()).isEqualTo("NOT_SENT");
        assertThat(get("/call-blocking/" + downstream.port() + "/0").bodyText()).isEqualTo("NOT_SENT");
        assertThat(get("/hello").bodyText()).isEqualTo("hello");
    }

    /** A port nothing listens on (bound, then closed). */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
            return s.getLocalPort();
        }
    }

    /**
     * What a raw server sends for one request: the bytes, written at once or a byte at a time 1 ms
     * apart; bytes written {@link #LATE_MILLIS} later, if any; and whether it then closes the
     * connection (else it reads on until the client closes).
     */
    private record Reply(String bytes, boolean trickled, String late, boolean thenCloses) {
        static final int LATE_MILLIS = 50;

        static Reply of(String bytes) {
            return new Reply(bytes, false, "", false);
        }

        Reply trickle() {
            return new Reply(bytes, true, late, thenCloses);
        }

        Reply thenLater(String lateBytes) {
            return new Reply(bytes, trickled, lateBytes, thenCloses);
        }

        Reply thenClose() {
            return new Reply(bytes, trickled, late, true);
        }
    }

    /**
     * A raw server's replies (the n-th request it reads, over all its connections, gets the n-th,
     * the last repeated), the outcome the handler sees for each call in turn (one call per
     * outcome), and how many connections the client opens for them (0: not checked).
     */
    private record RawCase(String name, String method, List<Reply> replies, List<String> outcomes, int connections) {
    }

    /** A server that reads a request and then misbehaves, or answers with scripted {@link Reply replies}. */
    private static final class FaultServer implements AutoCloseable {
        /** The ways it answers; {@code AFTER_SIX} reads six request heads, then answers each with its target, in order, in one write. */
        enum Fault { SILENT, CUT_BODY, GARBAGE, AFTER_SIX }

        private static final int PIPELINED = 6;

        private final ServerSocket listener;
        private final Queue<Socket> sockets = new ConcurrentLinkedQueue<>();
        private final AtomicInteger accepted = new AtomicInteger();
        /** Requests read so far over all connections: which reply is next. */
        private final AtomicInteger requests = new AtomicInteger();

        FaultServer(ServerSocket listener, Fault fault) {
            this.listener = listener;
            acceptEach(s -> misbehave(s, fault));
        }

        FaultServer(ServerSocket listener, List<Reply> replies) {
            this.listener = listener;
            acceptEach(s -> reply(s, replies));
        }

        private void acceptEach(Consumer<Socket> serve) {
            Thread.ofPlatform().daemon().name("fault-server").start(() -> {
                try {
                    while (true) {
                        Socket s = listener.accept();
                        accepted.incrementAndGet();
                        sockets.add(s);
                        Thread.ofVirtual().start(() -> serve.accept(s));
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
        }

        /** Reads request heads (no request here has a body) and answers each with the next reply. */
        private void reply(Socket s, List<Reply> replies) {
            try {
                s.setTcpNoDelay(true);
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                StringBuilder received = new StringBuilder();
                byte[] buffer = new byte[4096];
                while (true) {
                    int end;
                    while ((end = received.indexOf("\r\n\r\n")) < 0) {
                        int n = in.read(buffer);
                        if (n < 0) {
                            return;
                        }
                        received.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                    }
                    received.delete(0, end + 4);
                    Reply reply = replies.get(Math.min(requests.getAndIncrement(), replies.size() - 1));
                    byte[] bytes = reply.bytes().getBytes(StandardCharsets.ISO_8859_1);
                    if (reply.trickled()) {
                        for (byte b : bytes) {
                            out.write(b);
                            out.flush();
                            Thread.sleep(1);
                        }
                    } else {
                        out.write(bytes);
                        out.flush();
                    }
                    if (!reply.late().isEmpty()) {
                        Thread.sleep(Reply.LATE_MILLIS);
                        out.write(reply.late().getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                    }
                    if (reply.thenCloses()) {
                        s.close();
                        return;
                    }
                }
            } catch (IOException e) {
                // the client went away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        int accepted() {
            return accepted.get();
        }

        private static void misbehave(Socket s, Fault fault) {
            try {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                if (fault == Fault.AFTER_SIX) {
                    answerAfterSix(in, out);
                    return;
                }
                byte[] buffer = new byte[4096];
                int n = in.read(buffer);
                if (n < 0) {
                    return;
                }
                switch (fault) {
                    case SILENT -> in.transferTo(OutputStream.nullOutputStream());
                    case CUT_BODY -> {
                        out.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        s.close();
                    }
                    case AFTER_SIX -> throw new IllegalStateException("answered above");
                    case GARBAGE -> {
                        out.write("NOT HTTP AT ALL\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        in.transferTo(OutputStream.nullOutputStream());
                    }
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        /** Answers only once six requests arrived: a client that waits for each answer before the next request never gets one. */
        private static void answerAfterSix(InputStream in, OutputStream out) throws IOException {
            StringBuilder received = new StringBuilder();
            List<String> targets = new ArrayList<>();
            byte[] buffer = new byte[4096];
            while (targets.size() < PIPELINED) {
                int n = in.read(buffer);
                if (n < 0) {
                    return;
                }
                received.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                for (int end; (end = received.indexOf("\r\n\r\n")) >= 0; ) {
                    String line = received.substring(0, received.indexOf("\r\n"));
                    targets.add(line.substring(line.indexOf(' ') + 1, line.lastIndexOf(' ')));
                    received.delete(0, end + 4);
                }
            }
            StringBuilder answers = new StringBuilder();
            for (String target : targets) {
                answers.append("HTTP/1.1 200 OK\r\nContent-Length: ").append(target.length()).append("\r\n\r\n").append(target);
            }
            out.write(answers.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            in.transferTo(OutputStream.nullOutputStream());
        }

        int port() {
            return listener.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
