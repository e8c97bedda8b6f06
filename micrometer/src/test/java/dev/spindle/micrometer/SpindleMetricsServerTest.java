// SPDX-License-Identifier: Apache-2.0
package dev.spindle.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.blocking.VirtualThreadServer;
import dev.spindle.core.Client;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpException;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.ResponseReader;
import dev.spindle.nio.MultiLoopServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SpindleMetrics} on real servers (a blocking one and an event-loop one), read back the way
 * Prometheus reads it: the {@link PrometheusMeterRegistry}'s scrape text, parsed by {@link Scrape}.
 * Exchanges end (and are counted) once their last byte is written, which may be just after the
 * client has the answer, so every check polls the scrape for a while.
 */
class SpindleMetricsServerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String COUNT = "http_server_requests_seconds_count";

    /** A server class to run on; {@code start} builds it, binds its connections to the metrics and starts it. */
    record Strategy(String name, Starter start) {
        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    interface Starter {
        HttpServer start(ServerConfig config, Router router, SpindleMetrics metrics) throws IOException;
    }

    static Stream<Strategy> strategies() {
        return Stream.of(
                new Strategy("VirtualThreadServer", (config, router, metrics) -> {
                    VirtualThreadServer server = new VirtualThreadServer(config, router);
                    metrics.bindConnections(server::connectionCount);
                    return server.start();
                }),
                new Strategy("MultiLoopServer", (config, router, metrics) -> {
                    MultiLoopServer server = new MultiLoopServer(config, router);
                    metrics.bindConnections(server::connectionCount);
                    return server.start();
                }));
    }

    /**
     * Requests sent one per connection, and the series they must be counted in.
     *
     * @param requests raw HTTP/1.1 requests (each closes its connection)
     * @param status the status each must be answered
     * @param tags the timer's tags they are counted under, every tag of the convention
     */
    record Case(String name, List<String> requests, int status, Map<String, String> tags) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final int MAX_BODY = 1024;

    static List<Case> cases() {
        return List.of(
                new Case("a route's template, never its path", List.of(get("/users/1"), get("/users/2"), get("/users/42")), 200,
                        tags("GET", "/users/{id}", "200", "SUCCESS", "none")),
                new Case("HEAD on a GET route", List.of(request("HEAD", "/users/7", "")), 200,
                        tags("HEAD", "/users/{id}", "200", "SUCCESS", "none")),
                new Case("a handler that throws", List.of(get("/boom"), get("/boom")), 500,
                        tags("GET", "/boom", "500", "SERVER_ERROR", "IllegalStateException")),
                new Case("a route's own 404", List.of(get("/gone/7")), 404,
                        tags("GET", "/gone/{id}", "404", "CLIENT_ERROR", "HttpException")),
                new Case("no route: NOT_FOUND", List.of(get("/nothing/here"), get("/users/1/friends")), 404,
                        tags("GET", "NOT_FOUND", "404", "CLIENT_ERROR", "HttpException")),
                new Case("a body over maxBodySize", List.of(request("POST", "/echo", "x".repeat(4 * MAX_BODY))), 413,
                        tags("POST", "/echo", "413", "CLIENT_ERROR", "HttpException")),
                new Case("a method the route lacks", List.of(request("DELETE", "/users/1", "")), 405,
                        tags("DELETE", "UNKNOWN", "405", "CLIENT_ERROR", "HttpException")),
                new Case("an extension method", List.of(request("PURGE", "/users/1", "")), 405,
                        tags("_OTHER", "UNKNOWN", "405", "CLIENT_ERROR", "HttpException")),
                new Case("a malformed request line", List.of("NOT HTTP AT ALL\r\n\r\n"), 400,
                        tags("UNKNOWN", "UNKNOWN", "400", "CLIENT_ERROR", "HttpException")),
                new Case("a redirect of a route", List.of(get("/old")), 301,
                        tags("GET", "/old", "301", "REDIRECTION", "none")));
    }

    private static Map<String, String> tags(String method, String uri, String status, String outcome, String exception) {
        return Map.of("method", method, "uri", uri, "status", status, "outcome", outcome, "exception", exception);
    }

    private static String get(String target) {
        return request("GET", target, "");
    }

    private static String request(String method, String target, String body) {
        return method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + (body.isEmpty() ? "" : "Content-Length: " + body.length() + "\r\n") + "\r\n" + body;
    }

    private final CountDownLatch release = new CountDownLatch(1);
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final SpindleMetrics metrics = new SpindleMetrics(registry);

    private Router router() {
        return Router.builder()
                .listener(metrics)
                .get("/users/{id}", (req, res) -> res.jsonText("{\"id\":\"" + req.pathParam("id") + "\"}"))
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("boom");
                })
                .get("/gone/{id}", (req, res) -> {
                    throw new HttpException(404, "no such thing");
                })
                .get("/old", (req, res) -> res.status(301).header("Location", "/users/1").text(""))
                .post("/echo", (req, res) -> res.body(req.body()))
                .get("/slow", Handler.blocking((req, res) -> {
                    if (!release.await(10, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    res.text("slow");
                }))
                .build();
    }

    private static ServerConfig config() {
        return ServerConfig.defaults().port(0).shutdownHook(false).maxBodySize(MAX_BODY);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void countsEveryExchangeByRouteTemplateStatusOutcomeAndException(Strategy strategy) throws Exception {
        try (HttpServer server = strategy.start().start(config(), router(), metrics)) {
            int sent = 0;
            for (Case c : cases()) {
                for (String request : c.requests()) {
                    assertThat(exchange(server.port(), request).status()).as(c.name()).isEqualTo(c.status());
                    sent++;
                }
            }
            int total = sent;
            Scrape scrape = awaitScrape(s -> s.sum(COUNT, Map.of()) == total, total + " exchanges counted");
            List<String> problems = new ArrayList<>();
            for (Case c : cases()) {
                List<Scrape.Sample> series = scrape.find(COUNT, c.tags());
                if (series.size() != 1 || series.getFirst().value() != c.requests().size()) {
                    problems.add(c.name() + ": " + c.tags() + " counted " + series);
                }
            }
            assertThat(problems).as("the scrape:\n" + registry.scrape()).isEmpty();
            assertThat(scrape.values(COUNT, "uri")).as("raw paths are never a uri")
                    .allMatch(uri -> !uri.matches(".*/[0-9]+.*") && !uri.startsWith("/nothing"));
            assertThat(scrape.find(COUNT, Map.of()))
                    .as("every series has exactly the convention's tags")
                    .allMatch(s -> s.labels().keySet().equals(Set.of("method", "uri", "status", "outcome", "exception")));

            // body sizes: the three /users/{id} answers are {"id":"1"}, {"id":"2"}, {"id":"42"}
            Map<String, String> users = tags("GET", "/users/{id}", "200", "SUCCESS", "none");
            assertThat(scrape.sum("http_server_response_size_bytes_sum", users)).isEqualTo(10 + 10 + 11);
            assertThat(scrape.sum("http_server_response_size_bytes_count", users)).isEqualTo(3);
            assertThat(scrape.find("http_server_request_size_bytes_count", users)).as("GETs have no body to measure")
                    .allMatch(s -> s.value() == 0);
            assertThat(scrape.sum("http_server_requests_seconds_sum", users)).isPositive();

            assertThat(gauge(scrape, "spindle_exchanges_active")).isZero();
            assertThat(gauge(scrape, "spindle_http2_streams_active")).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void measuresRequestAndResponseBodies(Strategy strategy) throws Exception {
        try (HttpServer server = strategy.start().start(config(), router(), metrics)) {
            for (String body : List.of("hello", "x".repeat(1000))) {
                RawResponse r = exchange(server.port(), request("POST", "/echo", body));
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo(body);
            }
            Map<String, String> echo = tags("POST", "/echo", "200", "SUCCESS", "none");
            // the timer is recorded last, so once it counts both, their sizes are complete
            Scrape scrape = awaitScrape(s -> s.sum(COUNT, echo) == 2, "two uploads measured");
            assertThat(scrape.sum("http_server_request_size_bytes_sum", echo)).isEqualTo(1005);
            assertThat(scrape.sum("http_server_request_size_bytes_max", echo)).isEqualTo(1000);
            assertThat(scrape.sum("http_server_response_size_bytes_sum", echo)).isEqualTo(1005);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void gaugesOpenConnectionsAndExchangesInFlight(Strategy strategy) throws Exception {
        try (HttpServer server = strategy.start().start(config(), router(), metrics)) {
            awaitScrape(s -> gauge(s, "spindle_connections_open") == 0, "no connection open yet");
            try (Socket keepAlive = connect(server.port())) {
                OutputStream out = keepAlive.getOutputStream();
                ResponseReader in = new ResponseReader(keepAlive.getInputStream());
                out.write("GET /users/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(in.read(false).status()).isEqualTo(200);
                awaitScrape(s -> gauge(s, "spindle_connections_open") == 1, "the keep-alive connection open");

                out.write("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                awaitScrape(s -> gauge(s, "spindle_exchanges_active") == 1, "one exchange in flight");
                assertThat(gauge(Scrape.parse(registry.scrape()), "spindle_http2_streams_active")).isZero();
                release.countDown();
                assertThat(in.read(false).bodyText()).isEqualTo("slow");
                awaitScrape(s -> gauge(s, "spindle_exchanges_active") == 0, "no exchange in flight");
                assertThat(gauge(Scrape.parse(registry.scrape()), "spindle_connections_open")).isEqualTo(1);
            }
            awaitScrape(s -> gauge(s, "spindle_connections_open") == 0, "the connection closed");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void gaugesHttp2StreamsInFlight(Strategy strategy) throws Exception {
        try (HttpServer server = strategy.start().start(config(), router(), metrics);
             HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(TIMEOUT).build()) {
            String base = "http://127.0.0.1:" + server.port();
            // the first request upgrades the connection to h2c, the second is a stream of its own
            HttpResponse<String> first = client.send(HttpRequest.newBuilder(URI.create(base + "/users/5")).timeout(TIMEOUT).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
            CompletableFuture<HttpResponse<String>> slow = client.sendAsync(
                    HttpRequest.newBuilder(URI.create(base + "/slow")).timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
            awaitScrape(s -> gauge(s, "spindle_http2_streams_active") == 1 && gauge(s, "spindle_exchanges_active") == 1,
                    "one h2 stream in flight");
            release.countDown();
            assertThat(slow.get(10, TimeUnit.SECONDS).body()).isEqualTo("slow");
            Scrape scrape = awaitScrape(s -> gauge(s, "spindle_http2_streams_active") == 0 && gauge(s, "spindle_exchanges_active") == 0
                    && s.sum(COUNT, Map.of("uri", "/slow")) == 1, "the h2 stream ended");
            assertThat(scrape.sum(COUNT, tags("GET", "/users/{id}", "200", "SUCCESS", "none"))).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void gaugesAClientsPoolsByDestination(Strategy strategy) throws Exception {
        try (HttpServer server = strategy.start().start(config(), router(), metrics); Client client = Client.create()) {
            String destination = "http://127.0.0.1:" + server.port();
            metrics.bindClient(client, destination, "http://127.0.0.1:1");
            Map<String, String> tag = Map.of("destination", destination);
            assertThat(client.get(destination + "/users/3").call().status()).isEqualTo(200);
            Scrape scrape = awaitScrape(s -> s.sum("spindle_client_connections_idle", tag) == 1, "the kept-alive connection idle");
            assertThat(scrape.sum("spindle_client_connections_open", tag)).isEqualTo(1);
            assertThat(scrape.sum("spindle_client_requests_waiting", tag)).isZero();
            assertThat(scrape.sum("spindle_client_connections_open", Map.of("destination", "http://127.0.0.1:1")))
                    .as("a destination not called").isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void gaugesEveryDestinationAClientCallsTheFirstByNameTheRestSummed(Strategy strategy) throws Exception {
        try (HttpServer server = strategy.start().start(config(), router(), metrics);
                HttpServer other = strategy.start().start(config(), router(), metrics);
                Client client = Client.create()) {
            metrics.bindClient(client, Duration.ofMillis(20), 1);
            String first = "http://127.0.0.1:" + server.port();
            String second = "http://127.0.0.1:" + other.port();
            Map<String, String> named = Map.of("destination", first);
            Map<String, String> rest = Map.of("destination", SpindleMetrics.OTHER_DESTINATIONS);
            assertThat(client.get(first + "/users/3").call().status()).isEqualTo(200);
            awaitScrape(s -> s.sum("spindle_client_connections_idle", named) == 1, "the first destination tagged by name");
            assertThat(client.get(second + "/users/4").call().status()).isEqualTo(200);
            Scrape scrape = awaitScrape(s -> s.sum("spindle_client_connections_idle", rest) == 1, "the second summed in the rest");
            assertThat(scrape.sum("spindle_client_connections_open", named)).isEqualTo(1);
            assertThat(scrape.sum("spindle_client_connections_open", rest)).isEqualTo(1);
            assertThat(scrape.find("spindle_client_connections_open", Map.of("destination", second))).as("no row of its own").isEmpty();
            assertThat(scrape.sum("spindle_client_requests_waiting", named)).isZero();
        }
    }

    private static double gauge(Scrape scrape, String name) {
        List<Scrape.Sample> samples = scrape.find(name, Map.of());
        assertThat(samples).as(name).hasSize(1);
        return samples.getFirst().value();
    }

    private Scrape awaitScrape(Function<Scrape, Boolean> condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Scrape scrape = Scrape.parse(registry.scrape());
            if (condition.apply(scrape)) {
                // a scrape reads its meters one at a time, so this one may have read a gauge or a size
                // before the timer it waited on moved; the next one starts after and sees what the
                // listener recorded before that timer
                return Scrape.parse(registry.scrape());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting until " + what + "; the scrape:\n" + registry.scrape());
            }
            Thread.sleep(10);
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout((int) TIMEOUT.toMillis());
        return socket;
    }

    /** Sends one request on a connection of its own and reads the answer (the server closes the connection). */
    private static RawResponse exchange(int port, String request) throws IOException {
        try (Socket socket = connect(port)) {
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new ResponseReader(in).read(request.startsWith("HEAD "));
        }
    }
}
