package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedding example of the README, compiled and run; keep the two in step. */
class ReadmeExampleTest {
    @Test
    void embeddingExampleServesItsRoutes() throws Exception {
        // README example begins
        Router routes = Router.builder()
                .get("/hello", (req, res) -> res.text("Hello"))
                .get("/users/{id}", (req, res) -> res.json("{\"id\":\"" + req.pathParam("id") + "\"}"))
                .build();
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start()) {
            // README example ends
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> hello = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/hello")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(hello.body()).isEqualTo("Hello");
            HttpResponse<String> user = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/users/7")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(user.body()).isEqualTo("{\"id\":\"7\"}");
        }
    }

    @Test
    void streamingExampleServesItsRoutes(@TempDir Path dir) throws Exception {
        Path report = Files.writeString(dir.resolve("report.csv"), "a,b\n1,2\n");
        // README streaming example begins
        Router routes = Router.builder()
                // a file of any size, sent as the socket drains (zero-copy where the socket allows)
                .get("/report", (req, res) -> res.contentType("text/csv").file(report))
                // a body written on its own thread, sent chunked as the client reads it
                .get("/numbers", (req, res) -> res.stream(out -> {
                    for (int i = 0; i < 100_000; i++) {
                        out.write((i + "\n").getBytes(StandardCharsets.US_ASCII));
                    }
                }))
                // an upload read as it arrives, in bounded memory
                .post("/upload", Handler.blocking((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text(in.transferTo(OutputStream.nullOutputStream()) + " bytes\n");
                    }
                }))
                // answers later from a timer, holding no thread meanwhile
                .get("/later", Handler.async((req, res) -> CompletableFuture.runAsync(() -> res.text("done"),
                        CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS))))
                .build();
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start()) {
            // README streaming example ends
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/report")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("a,b\n1,2\n");
            String numbers = client.send(HttpRequest.newBuilder(URI.create(base + "/numbers")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(numbers).startsWith("0\n1\n2\n").endsWith("\n99999\n");
            assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/upload"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[300_000])).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("300000 bytes\n");
            assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/later")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("done");
        }
    }
}
