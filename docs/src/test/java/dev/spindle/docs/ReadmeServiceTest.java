// SPDX-License-Identifier: Apache-2.0
package dev.spindle.docs;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.spindle.blocking.VirtualThreadServer;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.Tls;
import dev.spindle.iouring.IoUring;
import dev.spindle.iouring.IoUringServer;
import dev.spindle.nio.MultiLoopServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * The README's {@code NotesService}, compiled from the README and run on one server of each kind
 * (blocking, NIO, io_uring) over plain HTTP and HTTPS: filters, the access log, the custom 404 and
 * the mapped domain exception, JSON in and out, static files with 304 and 206 and a precompressed
 * sibling, gzip, and its Prometheus metrics, parsed from its {@code /metrics} as Prometheus reads
 * them; then CORS, typed parameters, the session cookie of a form login and a multipart attachment.
 */
class ReadmeServiceTest {
    private static final String API_KEY = "k3y";
    private static final char[] PASSWORD = "changeit".toCharArray();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** A server class the service runs on; {@code unavailable} says why it cannot run here, or is null. */
    record Strategy(String name, BiFunction<ServerConfig, Router, HttpServer> factory, String unavailable) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Strategy> strategies() {
        return Stream.of(
                new Strategy("VirtualThreadServer", VirtualThreadServer::new, null),
                new Strategy("MultiLoopServer", MultiLoopServer::new, null),
                new Strategy("IoUringServer", IoUringServer::new,
                        IoUring.isAvailable() ? null : "io_uring is not available: " + IoUring.unavailabilityCause()));
    }

    @TempDir
    static Path dir;
    private static ReadmeClasses readme;
    private static Path web;
    private static Path uploads;
    private static byte[] manual;
    private static Tls tls;
    private static HttpClient client;
    private static final Queue<String> accessLines = new ConcurrentLinkedQueue<>();
    private static final Logger accessLogger = (Logger) LoggerFactory.getLogger("dev.spindle.access");
    private static final AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            accessLines.add(event.getFormattedMessage());
        }
    };

    @BeforeAll
    static void compileTheServiceAndPrepareItsFiles() throws Exception {
        readme = ReadmeClasses.compile(Files.createDirectories(dir.resolve("readme")));
        assertThat(readme.load("NotesService").getMethod("main", String[].class)).isNotNull();
        web = Files.createDirectories(dir.resolve("web"));
        uploads = Files.createDirectories(dir.resolve("uploads"));
        manual = new byte[256 * 1024];
        for (int i = 0; i < manual.length; i++) {
            manual[i] = (byte) (i % 251);
        }
        Files.write(web.resolve("manual.bin"), manual);
        Files.writeString(web.resolve("guide.txt"), "the guide");
        Files.writeString(web.resolve("guide.txt.gz"), "guide.txt, gzipped ahead of time");
        Path keyStore = newKeyStore(dir.resolve("server.p12"));
        tls = Tls.fromKeyStore(keyStore, PASSWORD);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT)
                .sslContext(trusting(keyStore)).build();
        capture.start();
        accessLogger.addAppender(capture);
        // the launchers' logback.xml logs WARN and up; the access lines are INFO
        accessLogger.setLevel(Level.INFO);
        accessLogger.setAdditive(false);
    }

    @AfterAll
    static void detachTheAccessLog() {
        accessLogger.detachAppender(capture);
        accessLogger.setLevel(null);
        accessLogger.setAdditive(true);
        if (client != null) {
            client.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void servesOverHttp(Strategy strategy) throws Exception {
        runService(strategy, "http", 0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void servesOverHttps(Strategy strategy) throws Exception {
        runService(strategy, "https", 1);
    }

    @Test
    void aBodyThatIsNotANoteIsA400() throws Exception {
        Router routes = routes(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0).shutdownHook(false), routes).start()) {
            HttpResponse<String> bad = send(post("http://127.0.0.1:" + server.port() + "/notes", "{\"title\":")
                    .header("X-Api-Key", API_KEY));
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("not a valid Note");
        }
    }

    private static Router routes(PrometheusMeterRegistry registry) throws Exception {
        return (Router) readme.call("NotesService", "routes",
                new Class<?>[] {Path.class, Path.class, String.class, PrometheusMeterRegistry.class}, web, uploads, API_KEY, registry);
    }

    /** Starts the service as its README code does (HTTP, then HTTPS) and checks the one at {@code index}. */
    private static void runService(Strategy strategy, String scheme, int index) throws Exception {
        Assumptions.assumeTrue(strategy.unavailable() == null, strategy::unavailable);
        ServerConfig config = ServerConfig.defaults().port(0).shutdownHook(false);
        @SuppressWarnings("unchecked")
        List<HttpServer> servers = (List<HttpServer>) readme.call("NotesService", "start",
                new Class<?>[] {BiFunction.class, Router.class, ServerConfig.class, ServerConfig.class},
                strategy.factory(), routes(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)), config, config.tls(tls));
        try {
            assertThat(servers).hasSize(2);
            checkTheService(scheme + "://127.0.0.1:" + servers.get(index).port(), strategy + "-" + scheme);
        } finally {
            servers.forEach(HttpServer::close);
        }
    }

    private static void checkTheService(String base, String run) throws Exception {
        HttpResponse<String> anonymous = send(post(base + "/notes", "{\"title\":\"milk\",\"text\":\"2 l\"}"));
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).isEqualTo("{\"error\":\"writes need an X-Api-Key or a session\"}");
        assertThat(anonymous.headers().firstValue("X-Request-Id")).as("a request id made up by the filter")
                .hasValueSatisfying(id -> assertThat(id).hasSize(36));

        HttpResponse<String> created = send(post(base + "/notes", "{\"title\":\"milk\",\"text\":\"2 l\"}")
                .header("X-Api-Key", API_KEY).header("X-Request-Id", run));
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.headers().firstValue("X-Request-Id")).hasValue(run);
        assertThat(created.headers().firstValue("Content-Type")).hasValue("application/json");
        String location = created.headers().firstValue("Location").orElseThrow();
        String id = location.substring("/notes/".length());
        assertThat(created.body()).isEqualTo("{\"id\":" + id + ",\"title\":\"milk\",\"text\":\"2 l\"}");

        HttpResponse<String> read = send(get(base + location));
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).isEqualTo(created.body());
        assertThat(send(get(base + "/notes")).body()).isEqualTo("[" + created.body() + "]");

        HttpResponse<String> noNote = send(get(base + "/notes/999").header("X-Request-Id", run));
        assertThat(noNote.statusCode()).isEqualTo(404);
        assertThat(noNote.body()).isEqualTo("{\"error\":\"no note 999\"}");
        assertThat(noNote.headers().firstValue("X-Request-Id")).as("kept on a mapped exception").hasValue(run);

        HttpResponse<String> noPage = send(get(base + "/nothing/here?run=" + run));
        assertThat(noPage.statusCode()).isEqualTo(404);
        assertThat(noPage.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(noPage.body()).isEqualTo("{\"error\":\"nothing at /nothing/here\"}");

        HttpResponse<byte[]> file = sendForBytes(get(base + "/static/manual.bin"));
        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.body()).isEqualTo(manual);
        String etag = file.headers().firstValue("ETag").orElseThrow();

        HttpResponse<byte[]> unchanged = sendForBytes(get(base + "/static/manual.bin").header("If-None-Match", etag));
        assertThat(unchanged.statusCode()).isEqualTo(304);
        assertThat(unchanged.body()).isEmpty();
        assertThat(unchanged.headers().firstValue("ETag")).hasValue(etag);

        HttpResponse<byte[]> part = sendForBytes(get(base + "/static/manual.bin?run=" + run).header("Range", "bytes=100000-100099"));
        assertThat(part.statusCode()).isEqualTo(206);
        assertThat(part.headers().firstValue("Content-Range")).hasValue("bytes 100000-100099/" + manual.length);
        assertThat(part.body()).isEqualTo(Arrays.copyOfRange(manual, 100_000, 100_100));

        // the access log writes its line once the answer's last byte is written, which may be just after the client has it
        assertThat(awaitAccessLine("GET /nothing/here?run=" + run + " ", " 404 ")).isTrue();
        assertThat(awaitAccessLine("GET /static/manual.bin?run=" + run + " ", " 206 100 B ")).isTrue();

        // what Prometheus scrapes: every exchange above under its route's template, never its path
        List<Sample> scrape = awaitMetrics(base, Map.of(
                series("GET", "/notes/{id}", "200", "SUCCESS", "none"), 1.0,
                // the domain exception the mapper answered
                series("GET", "/notes/{id}", "404", "CLIENT_ERROR", "NoSuchNote"), 1.0,
                series("POST", "/notes", "401", "CLIENT_ERROR", "none"), 1.0,
                series("POST", "/notes", "201", "SUCCESS", "none"), 1.0,
                series("GET", "/notes", "200", "SUCCESS", "none"), 1.0,
                series("GET", "NOT_FOUND", "404", "CLIENT_ERROR", "none"), 1.0,
                series("GET", "/static/{path...}", "200", "SUCCESS", "none"), 1.0,
                series("GET", "/static/{path...}", "304", "REDIRECTION", "none"), 1.0,
                series("GET", "/static/{path...}", "206", "SUCCESS", "none"), 1.0));
        assertThat(scrape).extracting(Sample::name).contains("http_server_requests_seconds_sum", "http_server_requests_seconds_max",
                "http_server_response_size_bytes_sum", "spindle_exchanges_active");
        assertThat(scrape).filteredOn(s -> s.name().equals("http_server_requests_seconds_count"))
                .extracting(s -> s.labels().get("uri"))
                .as("no raw path is a uri").noneMatch(uri -> uri.matches(".*/[0-9].*") || uri.contains("manual") || uri.startsWith("/nothing"));

        // gzip for a client that asks for it (after the scrape above, whose counts it would change)
        HttpResponse<byte[]> gzipped = sendForBytes(get(base + "/metrics").header("Accept-Encoding", "gzip"));
        assertThat(gzipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(gzipped.headers().allValues("Vary")).contains("Accept-Encoding");
        try (java.io.InputStream in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(gzipped.body()))) {
            assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).contains("http_server_requests_seconds_count");
        }
        HttpResponse<String> precompressed = send(get(base + "/static/guide.txt").header("Accept-Encoding", "gzip"));
        assertThat(precompressed.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(precompressed.body()).as("the sibling's bytes, as they are on disk").isEqualTo("guide.txt, gzipped ahead of time");
        assertThat(send(get(base + "/static/guide.txt")).body()).isEqualTo("the guide");

        checkTypedParameters(base, location);
        checkCors(base);
        String session = checkTheSessionCookie(base);
        checkAnAttachment(base, location, session);
    }

    private static void checkTypedParameters(String base, String location) throws Exception {
        HttpResponse<String> notANumber = send(get(base + "/notes/milk"));
        assertThat(notANumber.statusCode()).isEqualTo(400);
        assertThat(notANumber.body()).contains("path parameter 'id' must be an integer (long), got \"milk\"");
        HttpResponse<String> badLimit = send(get(base + "/notes?limit=many"));
        assertThat(badLimit.statusCode()).isEqualTo(400);
        assertThat(badLimit.body()).contains("query parameter 'limit' must be an integer (int)");
        assertThat(send(get(base + "/notes?limit=0")).body()).isEqualTo("[]");
        assertThat(send(get(base + "/notes?limit=1")).body()).isEqualTo("[" + send(get(base + location)).body() + "]");
    }

    private static void checkCors(String base) throws Exception {
        String front = "https://notes.example.com";
        HttpResponse<String> preflight = send(get(base + "/notes").method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", front).header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "content-type, x-api-key"));
        assertThat(preflight.statusCode()).isEqualTo(204);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).hasValue(front);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods")).hasValue("GET, POST");
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers")).hasValue("Content-Type, X-Api-Key");
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Credentials")).hasValue("true");
        HttpResponse<String> elsewhere = send(get(base + "/notes").method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://evil.example.net").header("Access-Control-Request-Method", "POST"));
        assertThat(elsewhere.statusCode()).isEqualTo(403);
        HttpResponse<String> denied = send(post(base + "/notes", "{}").header("Origin", front));
        assertThat(denied.statusCode()).as("a refusal by a later filter").isEqualTo(401);
        assertThat(denied.headers().firstValue("Access-Control-Allow-Origin")).as("the page may read why").hasValue(front);
        assertThat(denied.headers().allValues("Vary")).contains("Origin");
    }

    /** Logs in with the form, checks the cookie's attributes and that it authorizes a write; returns the cookie's value. */
    private static String checkTheSessionCookie(String base) throws Exception {
        HttpResponse<String> wrong = send(form(base + "/session", "key=guess"));
        assertThat(wrong.statusCode()).isEqualTo(403);
        assertThat(wrong.headers().allValues("Set-Cookie")).isEmpty();
        assertThat(send(form(base + "/session", "user=me")).body()).contains("form field 'key' is required");
        HttpResponse<String> login = send(form(base + "/session", "key=" + API_KEY));
        assertThat(login.statusCode()).isEqualTo(204);
        String cookie = login.headers().firstValue("Set-Cookie").orElseThrow();
        Matcher session = Pattern.compile("session=([0-9a-f-]{36}); Path=/; Secure; HttpOnly; SameSite=Strict").matcher(cookie);
        assertThat(session.matches()).as(cookie).isTrue();
        HttpResponse<String> written = send(post(base + "/notes", "{\"title\":\"eggs\",\"text\":\"6\"}")
                .header("Cookie", "theme=dark; session=" + session.group(1)));
        assertThat(written.statusCode()).isEqualTo(201);
        assertThat(send(post(base + "/notes", "{}").header("Cookie", "session=forged")).statusCode()).isEqualTo(401);
        return session.group(1);
    }

    private static void checkAnAttachment(String base, String location, String session) throws Exception {
        byte[] pdf = new byte[300_000];
        new java.util.Random(51).nextBytes(pdf);
        String boundary = "notes-boundary-7MA4YWxkTrZu0gW";
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"list.pdf\"\r\n"
                + "Content-Type: application/pdf\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        body.writeBytes(pdf);
        body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        java.util.function.Function<String, HttpRequest.Builder> upload = path -> get(base + path)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()));
        assertThat(send(upload.apply(location + "/attachments")).statusCode()).as("no credential").isEqualTo(401);
        assertThat(send(upload.apply("/notes/999/attachments").header("Cookie", "session=" + session)).statusCode()).isEqualTo(404);
        HttpResponse<String> stored = send(upload.apply(location + "/attachments").header("Cookie", "session=" + session));
        assertThat(stored.statusCode()).isEqualTo(201);
        Matcher attachment = Pattern.compile("\\{\"id\":\"([0-9a-f-]{36})\",\"filename\":\"list.pdf\",\"size\":300000}")
                .matcher(stored.body());
        assertThat(attachment.matches()).as(stored.body()).isTrue();
        assertThat(Files.readAllBytes(uploads.resolve(attachment.group(1)))).isEqualTo(pdf);
    }

    /** One line of a Prometheus text exposition: {@code name{label="value",...} value}. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    /** Parses the text exposition format: comments skipped, every other line a sample, or the parse fails. */
    private static List<Sample> parse(String text) {
        return text.lines().filter(line -> !line.isBlank() && !line.startsWith("#")).map(line -> {
            Matcher m = SAMPLE.matcher(line);
            assertThat(m.matches()).as("a sample line: %s", line).isTrue();
            Map<String, String> labels = new HashMap<>();
            if (m.group(2) != null) {
                Matcher label = LABEL.matcher(m.group(2));
                int end = 0;
                while (label.lookingAt()) {
                    labels.put(label.group(1), unescape(label.group(2)));
                    end = label.end();
                    label.region(end, m.group(2).length());
                }
                assertThat(end).as("labels of %s", line).isEqualTo(m.group(2).length());
            }
            return new Sample(m.group(1), labels, Double.parseDouble(m.group(3)));
        }).toList();
    }

    /** A label value as written: {@code \\}, {@code \"} and {@code \n} are escapes. */
    private static String unescape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\') {
                c = value.charAt(++i);
                out.append(c == 'n' ? '\n' : c);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static Map<String, String> series(String method, String uri, String status, String outcome, String exception) {
        return Map.of("method", method, "uri", uri, "status", status, "outcome", outcome, "exception", exception);
    }

    /**
     * GETs {@code /metrics} until each series has its count (an exchange is counted once its last byte is
     * written, which may be just after the client has it) and returns the last scrape.
     */
    private static List<Sample> awaitMetrics(String base, Map<Map<String, String>, Double> counts) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            HttpResponse<String> metrics = send(get(base + "/metrics"));
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
            List<Sample> scrape = parse(metrics.body());
            Map<Map<String, String>, Double> seen = new HashMap<>();
            for (Map<String, String> labels : counts.keySet()) {
                seen.put(labels, scrape.stream().filter(s -> s.name().equals("http_server_requests_seconds_count")
                        && s.labels().equals(labels)).mapToDouble(Sample::value).sum());
            }
            if (seen.equals(counts)) {
                return scrape;
            }
            if (System.nanoTime() > deadline) {
                assertThat(seen).as("the counts in\n" + metrics.body()).isEqualTo(counts);
            }
            Thread.sleep(10);
        }
    }

    /** Waits for a line {@code <prefix><protocol><rest>...}, whichever protocol the client agreed. */
    private static boolean awaitAccessLine(String prefix, String rest) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        do {
            if (accessLines.stream().anyMatch(line -> line.startsWith(prefix)
                    && (line.startsWith("HTTP/1.1" + rest, prefix.length()) || line.startsWith("HTTP/2" + rest, prefix.length())))) {
                return true;
            }
            Thread.sleep(10);
        } while (System.nanoTime() < deadline);
        System.err.println("access lines: " + accessLines);
        return false;
    }

    private static HttpRequest.Builder get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT);
    }

    private static HttpRequest.Builder post(String url, String json) {
        return get(url).POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
    }

    private static HttpRequest.Builder form(String url, String fields) {
        return get(url).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(fields, StandardCharsets.US_ASCII));
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<byte[]> sendForBytes(HttpRequest.Builder request) throws IOException, InterruptedException {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A PKCS#12 key store with a fresh EC key and a self-signed certificate for 127.0.0.1, made by the JDK's keytool. */
    private static Path newKeyStore(Path file) throws IOException, InterruptedException {
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "spindle", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12", "-validity", "2",
                "-keystore", file.toString(), "-storepass", new String(PASSWORD))
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as("keytool: %s", output).isZero();
        return file;
    }

    /** A client context that trusts the key store's certificate, and nothing else. */
    private static SSLContext trusting(Path keyStore) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("spindle", KeyStore.getInstance(keyStore.toFile(), PASSWORD).getCertificate("spindle"));
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
