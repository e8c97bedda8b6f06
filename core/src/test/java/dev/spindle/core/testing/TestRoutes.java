// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import dev.spindle.core.Handler;
import dev.spindle.core.HttpException;
import dev.spindle.core.Json;
import dev.spindle.core.Request;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import java.nio.charset.StandardCharsets;

/**
 * The routes core's connection tests and JMH benchmarks exchange with: the benchmark app's routes
 * that answer without I/O, with the same answers and in the same order. Core cannot use the app
 * itself ({@code dev.spindle.benchmark.BenchmarkApp}): that module depends on core.
 */
public final class TestRoutes {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HELLO_JSON = "{\"message\":\"Hello, World!\"}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OK = "OK".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);

    private TestRoutes() {
    }

    /**
     * {@code GET /plaintext}, {@code GET /json}, {@code POST /echo}, {@code POST /ingest},
     * {@code GET /users/{id}}, {@code GET /search?q=}, {@code GET /blocking/{ms}} (a blocking
     * handler) and {@code GET /health}.
     */
    public static Router routes() {
        return Router.builder()
                .get("/plaintext", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(HELLO))
                .get("/json", (req, res) -> res.contentType(Response.APPLICATION_JSON).body(HELLO_JSON))
                .post("/echo", (req, res) -> {
                    String type = req.header("Content-Type");
                    res.contentType(type != null ? type : "application/octet-stream").body(req.body());
                })
                .post("/ingest", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(TRUE))
                .get("/users/{id}", (req, res) -> res.jsonText("{\"id\":" + Json.quote(req.pathParam("id")) + "}"))
                .get("/search", (req, res) -> {
                    String q = req.queryParam("q");
                    if (q == null) {
                        throw new HttpException(400, "missing query parameter q");
                    }
                    res.jsonText("{\"q\":" + Json.quote(q) + "}");
                })
                .get("/blocking/{ms}", Handler.blocking(TestRoutes::sleep))
                .get("/health", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(OK))
                .build();
    }

    private static void sleep(Request req, Response res) throws InterruptedException {
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
        Thread.sleep(ms);
        res.jsonText("{\"slept\":" + ms + "}");
    }
}
