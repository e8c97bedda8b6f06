// SPDX-License-Identifier: Apache-2.0
package dev.spindle.benchmark;

import dev.spindle.core.Compression;
import dev.spindle.core.ContentEncoding;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpException;
import dev.spindle.core.Json;
import dev.spindle.core.MultipartForm;
import dev.spindle.core.Request;
import dev.spindle.core.Response;
import dev.spindle.core.RouteOptions;
import dev.spindle.core.Router;
import dev.spindle.core.UploadedFile;
import dev.spindle.core.WebSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The routes every Spindle launcher serves (see the design's benchmark app). */
public final class BenchmarkApp {
    /** Upper bound for {@code /blocking/{ms}}, so a request cannot hold a thread for long. */
    public static final int MAX_BLOCKING_MS = 10_000;
    /** Upper bound for {@code /delay/{ms}}. */
    public static final int MAX_DELAY_MS = 10_000;
    /** Size of the file {@code /download} serves. */
    public static final int DOWNLOAD_BYTES = 1 << 20;
    /** The largest body {@code POST /multipart} takes (its route's body limit). */
    public static final long MAX_MULTIPART_BYTES = 1L << 30;
    /** The largest message {@code /ws/echo} takes (inflated size). */
    public static final int MAX_WS_MESSAGE_BYTES = 16 << 20;
    /**
     * {@code /ws/echo}'s options: permessage-deflate when the client offers it (so interop covers
     * RFC 7692), and a send queue twice the largest message, so echoing one never finds it full.
     */
    static final WebSocket.Options WS_ECHO_OPTIONS = WebSocket.Options.defaults()
            .compression(true)
            .maxMessageSize(MAX_WS_MESSAGE_BYTES)
            .maxQueuedBytes(2 * MAX_WS_MESSAGE_BYTES);

    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HELLO_JSON = "{\"message\":\"Hello, World!\"}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OK = "OK".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    /**
     * {@code /users-list}'s compression, on that route alone: a router-wide one would add
     * {@code Vary: Accept-Encoding} to every other route's answer. gzip only, as the Netty
     * reference's {@code HttpContentCompressor} answers the scenario's {@code Accept-Encoding: gzip}.
     */
    private static final RouteOptions GZIP = RouteOptions.defaults().compression(Compression.defaults().encodings(ContentEncoding.gzip()));
    private static final String[] FIRST = {"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus"};
    private static final String[] LAST = {"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Wirth"};
    private static final String[] ROLES = {"admin", "editor", "viewer", "owner"};
    /** How many records {@link #usersList()} holds. */
    public static final int USERS = 20;
    /** {@link #usersList()}, built once (after the arrays it reads). */
    private static final byte[] USERS_LIST = usersList();

    private BenchmarkApp() {
    }

    /**
     * A router with the benchmark app's routes and nothing else; the remote routes call the
     * downstream named by {@value Downstream#PROPERTY}.
     *
     * @return a new router serving the routes of {@link #register}
     */
    public static Router routes() {
        return register(Router.builder()).build();
    }

    /**
     * A router with the benchmark app's routes, the remote ones calling {@code downstream}.
     *
     * @param downstream the base address of the service the remote routes call, or null for none
     * @return a new router serving the routes of {@link #register}
     */
    public static Router routes(URI downstream) {
        return register(Router.builder(), new Downstream(downstream, Downstream.DEFAULT_MARGIN)).build();
    }

    /**
     * Adds the benchmark app's routes to {@code routes}, for apps (and tests) that serve more; the
     * remote routes call the downstream named by {@value Downstream#PROPERTY}.
     *
     * @param routes the builder to add to
     * @return {@code routes}, for chaining
     */
    public static Router.Builder register(Router.Builder routes) {
        return register(routes, Downstream.fromSystemProperties(), Downstream.fromSystemProperties(Downstream.TLS_PROPERTY),
                Downstream.http2(Downstream.TLS_PROPERTY));
    }

    /**
     * Adds the benchmark app's routes to {@code routes}, the remote ones calling {@code downstream}.
     *
     * @param routes the builder to add to
     * @param downstream the service {@code /remote/{ms}} and {@code /remote-blocking/{ms}} call
     * @return {@code routes}, for chaining
     */
    public static Router.Builder register(Router.Builder routes, Downstream downstream) {
        return register(routes, downstream, Downstream.fromSystemProperties(Downstream.TLS_PROPERTY),
                Downstream.http2(Downstream.TLS_PROPERTY));
    }

    /**
     * Adds the benchmark app's routes to {@code routes}, the remote ones calling {@code downstream},
     * {@code /remote-tls/{ms}} calling {@code tlsDownstream}.
     *
     * @param routes the builder to add to
     * @param downstream the service {@code /remote/{ms}} and {@code /remote-blocking/{ms}} call
     * @param tlsDownstream the service {@code /remote-tls/{ms}} calls (over HTTPS, as the matrix's
     *        remote-tls scenario gives it; any http(s) address works)
     * @return {@code routes}, for chaining
     */
    public static Router.Builder register(Router.Builder routes, Downstream downstream, Downstream tlsDownstream) {
        return register(routes, downstream, tlsDownstream, Downstream.http2(Downstream.TLS_PROPERTY));
    }

    /**
     * Adds the benchmark app's routes to {@code routes}, the remote ones calling {@code downstream},
     * {@code /remote-tls/{ms}} calling {@code tlsDownstream}, {@code /remote-h2/{ms}} calling
     * {@code h2Downstream}.
     *
     * @param routes the builder to add to
     * @param downstream the service {@code /remote/{ms}} and {@code /remote-blocking/{ms}} call
     * @param tlsDownstream the service {@code /remote-tls/{ms}} calls (over HTTPS, as the matrix's
     *        remote-tls scenario gives it; any http(s) address works)
     * @param h2Downstream the service {@code /remote-h2/{ms}} calls, over HTTP/2 ({@link Downstream#http2(String)};
     *        the matrix gives it the TLS downstream, which offers h2 by ALPN)
     * @return {@code routes}, for chaining
     */
    public static Router.Builder register(Router.Builder routes, Downstream downstream, Downstream tlsDownstream,
            Downstream h2Downstream) {
        Broadcasts broadcasts = new Broadcasts();
        return routes
                .get("/plaintext", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(HELLO))
                .get("/json", (req, res) -> res.contentType(Response.APPLICATION_JSON).body(HELLO_JSON))
                // ~2 KB of JSON, gzip-compressed when the request accepts it (the json-gzip scenario)
                .get("/users-list", (req, res) -> res.contentType(Response.APPLICATION_JSON).body(USERS_LIST), GZIP)
                .post("/echo", (req, res) -> {
                    String type = req.header("Content-Type");
                    res.contentType(type != null ? type : "application/octet-stream").body(req.body());
                })
                // one-way payload: an inline handler runs once the whole body has arrived, so the
                // acknowledgement follows the last byte, as the payload benchmark's boolean reply does
                .post("/ingest", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(TRUE))
                .get("/users/{id}", (req, res) -> res.jsonText("{\"id\":" + Json.quote(req.pathParam("id")) + "}"))
                .get("/search", (req, res) -> {
                    String q = req.queryParam("q");
                    if (q == null) {
                        throw new HttpException(400, "missing query parameter q");
                    }
                    res.jsonText("{\"q\":" + Json.quote(q) + "}");
                })
                .get("/blocking/{ms}", Handler.blocking(BenchmarkApp::sleep))
                .get("/health", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(OK))
                .get("/delay/{ms}", Handler.async(BenchmarkApp::delay))
                // the same downstream call twice: no thread waits for sendAsync; send holds its thread
                .get("/remote/{ms}", Handler.async((req, res) -> downstream.fetchAsync(millis(req, MAX_DELAY_MS), res)))
                .get("/remote-blocking/{ms}", Handler.blocking((req, res) -> downstream.fetch(millis(req, MAX_DELAY_MS), res)))
                // /remote/{ms} with its own downstream, which the matrix reaches over HTTPS
                .get("/remote-tls/{ms}", Handler.async((req, res) -> tlsDownstream.fetchAsync(millis(req, MAX_DELAY_MS), res)))
                // the same TLS downstream over HTTP/2: one connection multiplexes up to its 128 concurrent streams
                .get("/remote-h2/{ms}", Handler.async((req, res) -> h2Downstream.fetchAsync(millis(req, MAX_DELAY_MS), res)))
                .get("/download", (req, res) -> res.contentType("application/octet-stream").file(DownloadFile.PATH))
                .post("/multipart", Handler.blocking(BenchmarkApp::multipart), RouteOptions.defaults().maxBodySize(MAX_MULTIPART_BYTES))
                .websocket("/ws/echo", new WsEcho(), WS_ECHO_OPTIONS)
                // the fan-out benchmarks: one room of sockets, one set of event streams
                .websocket("/ws/broadcast", broadcasts.room())
                .get("/sse/broadcast", broadcasts::subscribe)
                .post("/sse/publish", broadcasts::publish);
    }

    /**
     * {@code /ws/echo}: each text and binary message sent back as it came. The core answers pings
     * and the client's close (with its code) by itself, so only messages need handling here.
     */
    static final class WsEcho implements WebSocket.Endpoint {
        @Override
        public void onText(WebSocket socket, String message) {
            socket.sendText(message);
        }

        @Override
        public void onBinary(WebSocket socket, ByteBuffer message) {
            socket.sendBinary(message);
        }
    }

    /**
     * The JSON document {@code /users-list} answers: {@value #USERS} small user records, about 2 KB
     * of ASCII. The Netty reference (its {@code Fixtures.usersList()}) and scripts/lib/bench.py
     * build the same bytes; the benchmark's route check compares them.
     *
     * @return a new array of the document's bytes
     */
    public static byte[] usersList() {
        StringBuilder json = new StringBuilder("{\"users\":[");
        for (int i = 1; i <= USERS; i++) {
            String first = FIRST[i % FIRST.length];
            String last = LAST[i * 3 % LAST.length];
            json.append(i == 1 ? "" : ",")
                    .append("{\"id\":").append(i)
                    .append(",\"name\":\"").append(first).append(' ').append(last)
                    .append("\",\"email\":\"").append(first.toLowerCase(Locale.ROOT)).append('.')
                    .append(last.toLowerCase(Locale.ROOT)).append(i).append("@example.com")
                    .append("\",\"role\":\"").append(ROLES[i % ROLES.length])
                    .append("\",\"active\":").append(i % 4 != 0)
                    .append(",\"score\":").append(i * 37 % 100).append('}');
        }
        return json.append("]}").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A {@code multipart/form-data} upload: its files stored in the temporary directory by
     * {@link dev.spindle.core.Multipart#form()} (deleted when the exchange ends), answered with the
     * fields and each file's size and SHA-256, read back from the disk.
     */
    private static void multipart(Request req, Response res) throws IOException {
        MultipartForm form = req.multipart().form();
        StringBuilder json = new StringBuilder("{\"fields\":{");
        String comma = "";
        for (String name : form.names()) {
            json.append(comma).append(Json.quote(name)).append(':').append(Json.quote(form.value(name)));
            comma = ",";
        }
        json.append("},\"files\":[");
        comma = "";
        for (UploadedFile file : form.files()) {
            json.append(comma).append("{\"name\":").append(Json.quote(file.name())).append(",\"filename\":")
                    .append(Json.quote(file.filename())).append(",\"size\":").append(file.size()).append(",\"sha256\":\"")
                    .append(sha256(file.path())).append("\"}");
            comma = ",";
        }
        res.jsonText(json.append("]}").toString());
    }

    /** How much a digest reads before it lets other virtual threads run. */
    private static final int YIELD_BYTES = 1 << 20;

    private static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
        byte[] buffer = new byte[64 * 1024];
        long sinceYield = 0;
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
                sinceYield += n;
                // hashing holds a virtual thread's carrier (file reads do not unmount it): on a server
                // whose connections are virtual threads too, let them run between megabytes
                if (sinceYield >= YIELD_BYTES) {
                    sinceYield = 0;
                    Thread.yield();
                }
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void sleep(Request req, Response res) throws InterruptedException {
        int slept = millis(req, MAX_BLOCKING_MS);
        Thread.sleep(slept);
        res.jsonText("{\"slept\":" + slept + "}");
    }

    /** Answers from the JDK's shared delay scheduler: no thread waits while the time passes. */
    private static CompletableFuture<Void> delay(Request req, Response res) {
        int ms = millis(req, MAX_DELAY_MS);
        return CompletableFuture.runAsync(() -> res.jsonText("{\"delayed\":" + ms + "}"),
                CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS, Runnable::run));
    }

    private static int millis(Request req, int max) {
        String raw = req.pathParam("ms");
        int ms;
        try {
            ms = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            throw new HttpException(400, "milliseconds must be a number: " + raw);
        }
        if (ms < 0) {
            throw new HttpException(400, "milliseconds must not be negative: " + raw);
        }
        return Math.min(ms, max);
    }

    /**
     * The file {@code /download} serves: {@value #DOWNLOAD_BYTES} bytes (byte {@code i} is
     * {@code i % 251}), written once per process to the temporary directory.
     */
    public static final class DownloadFile {
        /**
         * Where the file lies; created when this class is first used, deleted when the JVM exits.
         * A failure to write it surfaces as an {@link ExceptionInInitializerError} at that first use.
         */
        public static final Path PATH = create();

        private DownloadFile() {
        }

        /**
         * Byte {@code i} of the file, for checking a download without reading the file.
         *
         * @param i the offset in the file, from 0 to {@link BenchmarkApp#DOWNLOAD_BYTES} - 1
         * @return {@code (byte) (i % 251)}
         */
        public static byte at(long i) {
            return (byte) (i % 251);
        }

        private static Path create() {
            try {
                Path file = Files.createTempFile("spindle-download-", ".bin");
                file.toFile().deleteOnExit();
                byte[] bytes = new byte[DOWNLOAD_BYTES];
                for (int i = 0; i < bytes.length; i++) {
                    bytes[i] = at(i);
                }
                Files.write(file, bytes);
                return file;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the benchmark download file", e);
            }
        }
    }
}
