package dev.spindle.core;

import java.nio.charset.StandardCharsets;

/** The routes every Spindle launcher serves (see the design's benchmark app). */
public final class BenchmarkApp {
    /** Upper bound for {@code /blocking/{ms}}, so a request cannot hold a thread for long. */
    public static final int MAX_BLOCKING_MS = 10_000;

    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HELLO_JSON = "{\"message\":\"Hello, World!\"}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OK = "OK".getBytes(StandardCharsets.US_ASCII);

    private BenchmarkApp() {
    }

    public static Router routes() {
        return Router.builder()
                .get("/plaintext", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(HELLO))
                .get("/json", (req, res) -> res.contentType(Response.APPLICATION_JSON).body(HELLO_JSON))
                .post("/echo", (req, res) -> {
                    String type = req.header("Content-Type");
                    res.contentType(type != null ? type : "application/octet-stream").body(req.body());
                })
                .get("/users/{id}", (req, res) -> res.json("{\"id\":" + Json.quote(req.pathParam("id")) + "}"))
                .get("/search", (req, res) -> {
                    String q = req.queryParam("q");
                    if (q == null) {
                        throw new HttpException(400, "missing query parameter q");
                    }
                    res.json("{\"q\":" + Json.quote(q) + "}");
                })
                .get("/blocking/{ms}", Handler.blocking(BenchmarkApp::sleep))
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
        int slept = Math.min(ms, MAX_BLOCKING_MS);
        Thread.sleep(slept);
        res.json("{\"slept\":" + slept + "}");
    }
}
