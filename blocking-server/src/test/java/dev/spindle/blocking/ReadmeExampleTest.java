package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The embedding example of the README, compiled and run; keep the two in step. */
class ReadmeExampleTest {
    @Test
    void embeddingExampleServesItsRoutes() throws Exception {
        // README example begins
        Router routes = Router.builder()
                .get("/hello", (req, res) -> res.text("Hello"))
                .get("/users/{id}", (req, res) -> res.json("{\"id\":\"" + req.pathParam("id") + "\"}"))
                .build();
        try (HttpServer server = new VirtualThreadServer(ServerConfig.port(0), routes).start()) {
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
}
