package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientException;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spindle's {@link Client} used by handlers of the server under test, calling another Spindle
 * server (behind a proxy that counts the connections it accepts) and raw servers that misbehave.
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

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Calls whose completion ran on another thread than their handler, though it ran on an event loop. */
    private final Queue<String> threadMismatches = new ConcurrentLinkedQueue<>();
    private final AtomicInteger asyncCalls = new AtomicInteger();
    private Client client;
    /** One connection per loop and destination, up to 8 requests pipelined on it. */
    private Client pipelining;
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

    @BeforeEach
    void start() throws IOException {
        client = Client.create(ClientConfig.defaults().responseTimeout(Duration.ofMillis(1500))
                .maxConnectionsPerDestination(MAX_CONNECTIONS).maxWaitingRequests(MAX_WAITING));
        resources.add(client);
        pipelining = Client.create(ClientConfig.defaults().responseTimeout(Duration.ofSeconds(5))
                .maxConnectionsPerDestination(1).maxPipelined(8));
        resources.add(pipelining);
        HttpServer target = newServer(ServerConfig.defaults().port(0), downstreamRoutes()).start();
        resources.add(target::close);
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
                .get("/call-blocking/{port}/{ms}", Handler.blocking((req, res) -> {
                    try {
                        answer(res, client.get(address(req.pathParam("port"), req.pathParam("ms"))).call(), null);
                    } catch (ClientException e) {
                        answer(res, null, e);
                    }
                }))
                .build();
    }

    private static String address(String port, String ms) {
        return "http://127.0.0.1:" + port + "/delay/" + ms;
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
        assumeTrue(handlersOnEventLoop(), "only an event loop's pool pipelines");
        // a server that answers only once all six requests are in: they must have been pipelined on one connection
        try (FaultServer server = new FaultServer(FaultServer.Fault.AFTER_SIX)) {
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
    void aLoopOpensAtMostTheLimitPerDestinationAndQueuesABoundedNumber() throws Exception {
        assumeTrue(handlersOnEventLoop(), "only an event loop's pool has a limit and a queue");
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
        List<String> bodies = new ArrayList<>();
        for (CompletableFuture<RawResponse> call : calls) {
            bodies.add(call.get(20, TimeUnit.SECONDS).bodyText());
        }
        assertThat(bodies).filteredOn("slept 1000"::equals).hasSize(MAX_CONNECTIONS + MAX_WAITING);
        assertThat(bodies).filteredOn("POOL_FULL"::equals).hasSize(1);
        assertThat(downstream.accepted()).as("no more connections than the limit").hasValue(MAX_CONNECTIONS);
        assertThat(threadMismatches).isEmpty();
        assertCallerStillServes();
    }

    @Test
    void aConnectionTheDownstreamClosedWhileIdleIsReplaced() throws Exception {
        HttpServer brief = newServer(ServerConfig.defaults().port(0).idleTimeout(Duration.ofMillis(200)), downstreamRoutes()).start();
        resources.add(brief::close);
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
        try (FaultServer silent = new FaultServer(FaultServer.Fault.SILENT)) {
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
    void aDownstreamDyingMidBodyClosesTheCall() throws IOException {
        try (FaultServer dying = new FaultServer(FaultServer.Fault.CUT_BODY)) {
            assertThat(get("/call/" + dying.port() + "/0").bodyText()).isEqualTo("CONNECTION_CLOSED");
            assertThat(get("/call-blocking/" + dying.port() + "/0").bodyText()).isEqualTo("CONNECTION_CLOSED");
        }
        assertCallerStillServes();
    }

    @Test
    void garbageIsAMalformedResponse() throws IOException {
        try (FaultServer garbage = new FaultServer(FaultServer.Fault.GARBAGE)) {
            assertThat(get("/call/" + garbage.port() + "/0").bodyText()).isEqualTo("MALFORMED_RESPONSE");
            assertThat(get("/call-blocking/" + garbage.port() + "/0").bodyText()).isEqualTo("MALFORMED_RESPONSE");
        }
        assertCallerStillServes();
    }

    @Test
    void codeOutsideAnyServerCallsOnItsOwnThreadAndReusesTheConnection() throws Exception {
        String base = "http://127.0.0.1:" + downstream.port();
        for (int i = 0; i < 3; i++) {
            assertThat(client.get(base + "/delay/" + i).call().bodyText()).isEqualTo("slept " + i);
        }
        // the delay lets the dependent action be attached before the response completes the stage
        CompletableFuture<Thread> completedOn = client.get(base + "/delay/200").send().thenApply(r -> Thread.currentThread())
                .toCompletableFuture();
        assertThat(completedOn.get(10, TimeUnit.SECONDS).isVirtual()).as("send() off a loop runs on a virtual thread").isTrue();
        assertThat(downstream.accepted()).as("one connection, reused").hasValue(1);
        assertThatThrownBy(() -> client.get("http://127.0.0.1:" + closedPort() + "/x").call())
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

    /** Forwards each connection to a port, counting the connections it accepts. */
    private static final class CountingProxy implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 50, LOOPBACK);
        private final AtomicInteger accepted = new AtomicInteger();
        private final Queue<Socket> sockets = new ConcurrentLinkedQueue<>();

        CountingProxy(int target) throws IOException {
            Thread.ofPlatform().daemon().name("counting-proxy").start(() -> {
                try {
                    while (true) {
                        Socket in = listener.accept();
                        accepted.incrementAndGet();
                        Socket out = new Socket(LOOPBACK, target);
                        sockets.add(in);
                        sockets.add(out);
                        pump(in, out);
                        pump(out, in);
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
        }

        private static void pump(Socket from, Socket to) {
            Thread.ofVirtual().start(() -> {
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    in.transferTo(out);
                } catch (IOException e) {
                    // one side went away
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            });
        }

        int port() {
            return listener.getLocalPort();
        }

        AtomicInteger accepted() {
            return accepted;
        }

        @Override
        public void close() throws IOException {
            listener.close();
            sockets.forEach(CountingProxy::closeQuietly);
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    /** A server that reads a request and then misbehaves. */
    private static final class FaultServer implements AutoCloseable {
        /** The ways it answers; {@code AFTER_SIX} reads six request heads, then answers each with its target, in order, in one write. */
        enum Fault { SILENT, CUT_BODY, GARBAGE, AFTER_SIX }

        private static final int PIPELINED = 6;

        private final ServerSocket listener = new ServerSocket(0, 50, LOOPBACK);
        private final Queue<Socket> sockets = new ConcurrentLinkedQueue<>();

        FaultServer(Fault fault) throws IOException {
            Thread.ofPlatform().daemon().name("fault-server").start(() -> {
                try {
                    while (true) {
                        Socket s = listener.accept();
                        sockets.add(s);
                        Thread.ofVirtual().start(() -> misbehave(s, fault));
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
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
