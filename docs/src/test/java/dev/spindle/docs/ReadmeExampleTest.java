// SPDX-License-Identifier: Apache-2.0
package dev.spindle.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.blocking.VirtualThreadServer;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's embedding section, as written there: every {@code java} block that declares a
 * public class is taken out of README.md, compiled (imports and all) and its routes served
 * ({@link ReadmeServiceTest} runs the whole service on several servers).
 */
class ReadmeExampleTest {
    @TempDir
    static Path dir;
    private static ReadmeClasses readme;

    @BeforeAll
    static void compileTheReadmeExamples() throws IOException {
        readme = ReadmeClasses.compile(dir);
        assertThat(readme.names()).as("classes in the README's embedding section")
                .contains("HelloService", "StreamingRoutes", "FilteredRoutes", "UploadRoutes", "JacksonCodec", "TodoRoutes",
                        "HealthyService", "NotesService", "Notifications", "ChatRoom", "RoomFollower");
    }

    private static Object call(String className, String method, Class<?>[] types, Object... args) throws Exception {
        return readme.call(className, method, types, args);
    }

    private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void helloServiceServesItsRoutesWithValidJson() throws Exception {
        Router routes = (Router) call("HelloService", "routes", new Class<?>[0]);
        readme.load("HelloService").getMethod("main", String[].class);
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start()) {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            assertThat(get(client, base + "/hello").body()).isEqualTo("Hello");
            assertThat(get(client, base + "/users/7").body()).isEqualTo("{\"id\":\"7\"}");
            // a quote in the path variable stays a quote inside the JSON string
            assertThat(get(client, base + "/users/a%22b").body()).isEqualTo("{\"id\":\"a\\\"b\"}");
        }
    }

    @Test
    void streamingRoutesServeFilesStreamsUploadsAndLateAnswers() throws Exception {
        Path report = Files.writeString(dir.resolve("report.csv"), "a,b\n1,2\n");
        Router routes = (Router) call("StreamingRoutes", "routes", new Class<?>[] {Path.class}, report);
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start()) {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            assertThat(get(client, base + "/report").body()).isEqualTo("a,b\n1,2\n");
            assertThat(get(client, base + "/numbers").body()).startsWith("0\n1\n2\n").endsWith("\n99999\n");
            assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/upload"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[300_000])).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("300000 bytes\n");
            assertThat(get(client, base + "/later").body()).isEqualTo("done");
        }
    }

    @Test
    void filteredRoutesAnswerAsTheReadmeSays() throws Exception {
        dev.spindle.core.ExchangeMetrics metrics = new dev.spindle.core.ExchangeMetrics();
        Router routes = (Router) call("FilteredRoutes", "routes", new Class<?>[] {dev.spindle.core.ExchangeMetrics.class}, metrics);
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start()) {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            HttpResponse<String> item = get(client, base + "/items/12");
            assertThat(item.body()).isEqualTo("{\"id\":12}");
            assertThat(item.headers().firstValue("Access-Control-Allow-Origin")).hasValue("*");
            HttpResponse<String> bad = get(client, base + "/items/x");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).isEqualTo("{\"error\":\"id must be a number\"}");
            assertThat(bad.headers().firstValue("Access-Control-Allow-Origin")).hasValue("*");
            HttpResponse<String> missing = get(client, base + "/nope");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(missing.body()).isEqualTo("{\"error\":\"no such page\"}");
            assertThat(get(client, base + "/admin/stats").statusCode()).isEqualTo(401);
            HttpResponse<String> stats = client.send(HttpRequest.newBuilder(URI.create(base + "/admin/stats"))
                    .header("Authorization", "Bearer t").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(stats.body()).isEqualTo("{\"exchanges\":4}");
            assertThat(get(client, base + "/slow").body()).isEqualTo("done");
            assertThat(get(client, base + "/teapot").statusCode()).isEqualTo(418);
            assertThat(metrics.count()).isEqualTo(7);
        }
    }

    @Test
    void todoRoutesReadAndWriteJsonThroughJackson() throws Exception {
        Router routes = (Router) call("TodoRoutes", "routes", new Class<?>[0]);
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start()) {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            HttpResponse<String> created = client.send(HttpRequest.newBuilder(URI.create(base + "/todos"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"write docs\",\"done\":false}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).isEqualTo(201);
            assertThat(created.body()).isEqualTo("{\"title\":\"write docs\",\"done\":false}");
            HttpResponse<String> bad = client.send(HttpRequest.newBuilder(URI.create(base + "/todos"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"title\":")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("not a valid Todo");
            assertThat(get(client, base + "/todos").body()).isEqualTo("[{\"title\":\"write docs\",\"done\":false}]");
        }
    }

    /** A multipart body of parts given as header lines and content, as a browser sends one. */
    private static byte[] multipart(String boundary, String[]... parts) {
        StringBuilder body = new StringBuilder();
        for (String[] part : parts) {
            body.append("--").append(boundary).append("\r\n").append(part[0]).append("\r\n\r\n").append(part[1]).append("\r\n");
        }
        return body.append("--").append(boundary).append("--\r\n").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void uploadRoutesStoreCountAndReadMultipartForms() throws Exception {
        Path storage = Files.createDirectories(dir.resolve("photos"));
        Router routes = (Router) call("UploadRoutes", "routes", new Class<?>[] {Path.class}, storage);
        String b = "----docsBoundary";
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start()) {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            java.util.function.BiFunction<String, byte[], HttpResponse<String>> post = (path, body) -> {
                try {
                    return client.send(HttpRequest.newBuilder(URI.create(base + path))
                            .header("Content-Type", "multipart/form-data; boundary=" + b)
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
                } catch (IOException | InterruptedException e) {
                    throw new AssertionError(e);
                }
            };
            HttpResponse<String> photos = post.apply("/photos", multipart(b,
                    new String[] {"Content-Disposition: form-data; name=\"album\"", "Lisbon"},
                    new String[] {"Content-Disposition: form-data; name=\"photo\"; filename=\"../tram.jpg\"\r\nContent-Type: image/jpeg", "JPEG1"},
                    new String[] {"Content-Disposition: form-data; name=\"photo\"; filename=\"C:\\pics\\sea.jpg\"\r\nContent-Type: image/jpeg",
                        "JPEG2"}));
            assertThat(photos.statusCode()).isEqualTo(201);
            assertThat(photos.body()).isEqualTo("2 photo(s) in Lisbon");
            try (java.util.stream.Stream<Path> kept = Files.list(storage)) {
                assertThat(kept.map(p -> p.getFileName().toString().substring(37)).sorted()).containsExactly("sea.jpg", "tram.jpg");
            }
            HttpResponse<String> missing = post.apply("/photos", multipart(b, new String[] {"Content-Disposition: form-data; name=\"x\"", "1"}));
            assertThat(missing.statusCode()).isEqualTo(400);
            assertThat(missing.body()).isEqualTo("400 Bad Request: form field 'album' is required\n");
            assertThat(post.apply("/import", multipart(b,
                    new String[] {"Content-Disposition: form-data; name=\"csv\"; filename=\"rows.csv\"", "a,b\n1,2\n3,4"})).body())
                    .isEqualTo("3 rows");
            assertThat(post.apply("/attachments", multipart(b,
                    new String[] {"Content-Disposition: form-data; name=\"note\"", "hi"},
                    new String[] {"Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"", "A"})).body())
                    .isEqualTo("1 file(s), 1 field(s)");
            HttpResponse<String> tooMany = post.apply("/attachments", multipart(b,
                    java.util.stream.IntStream.range(0, 21).mapToObj(i -> new String[] {"Content-Disposition: form-data; name=\"f" + i + "\"", "v"})
                            .toArray(String[][]::new)));
            assertThat(tooMany.statusCode()).isEqualTo(413);
            assertThat(tooMany.body()).isEqualTo("413 Content Too Large: the multipart body has more than 20 parts\n");
        }
    }

    @Test
    void notificationsReachSubscribersAsPublishedAndAReconnectGetsWhatItMissed() throws Exception {
        Object notifications = readme.load("Notifications").getDeclaredConstructor().newInstance();
        Router routes = (Router) notifications.getClass().getMethod("routes").invoke(notifications);
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start();
             HttpClient client = HttpClient.newHttpClient()) {
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/notifications");
            HttpResponse<java.util.stream.Stream<String>> live = client.send(HttpRequest.newBuilder(uri).build(),
                    HttpResponse.BodyHandlers.ofLines());
            assertThat(live.headers().firstValue("content-type")).hasValue("text/event-stream");
            java.util.Iterator<String> lines = live.body().iterator();
            // the subscriber is registered on the stream's thread: wait for it rather than race it
            java.lang.reflect.Field field = notifications.getClass().getDeclaredField("subscribers");
            field.setAccessible(true);
            java.util.Set<?> subscribers = (java.util.Set<?>) field.get(notifications);
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            while (subscribers.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(subscribers).hasSize(1);
            client.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString("milk is out")).build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(lines.next()).isEqualTo("event: notification");
            assertThat(lines.next()).isEqualTo("data: milk is out");
            String id = lines.next();
            assertThat(id).startsWith("id: ");
            assertThat(lines.next()).isEmpty();
            live.body().close();
            assertThat(client.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofString("eggs too")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(202);
            HttpResponse<java.util.stream.Stream<String>> resumed = client.send(HttpRequest.newBuilder(uri)
                    .header("Last-Event-ID", id.substring(4)).build(), HttpResponse.BodyHandlers.ofLines());
            java.util.Iterator<String> missed = resumed.body().iterator();
            assertThat(missed.next()).isEqualTo("event: notification");
            assertThat(missed.next()).isEqualTo("data: eggs too");
            assertThat(missed.next()).isEqualTo("id: " + (Long.parseLong(id.substring(4)) + 1));
            resumed.body().close();
        }
    }

    /** What one chat client received. */
    static final class ChatClient implements java.net.http.WebSocket.Listener {
        final java.util.concurrent.BlockingQueue<String> lines = new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public java.util.concurrent.CompletionStage<?> onText(java.net.http.WebSocket ws, CharSequence data, boolean last) {
            lines.add(data.toString());
            ws.request(1);
            return null;
        }

        String next() throws InterruptedException {
            return lines.poll(5, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void chatRoomBroadcastsToTheRoomAndRefusesStrangers() throws Exception {
        Object chat = readme.load("ChatRoom").getDeclaredConstructor().newInstance();
        Router routes = (Router) chat.getClass().getMethod("routes").invoke(chat);
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start();
             HttpClient client = HttpClient.newHttpClient()) {
            URI lobby = URI.create("ws://127.0.0.1:" + server.port() + "/chat/lobby");
            ChatClient ann = new ChatClient();
            java.net.http.WebSocket annSocket = client.newWebSocketBuilder().header("Cookie", "user=ann").subprotocols("chat.v1")
                    .buildAsync(lobby, ann).get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(annSocket.getSubprotocol()).isEqualTo("chat.v1");
            assertThat(ann.next()).isEqualTo("ann joined");
            ChatClient bob = new ChatClient();
            java.net.http.WebSocket bobSocket = client.newWebSocketBuilder().header("Cookie", "user=bob")
                    .buildAsync(lobby, bob).get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(ann.next()).isEqualTo("bob joined");
            assertThat(bob.next()).isEqualTo("bob joined");
            annSocket.sendText("hi all", true).get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(ann.next()).isEqualTo("ann: hi all");
            assertThat(bob.next()).isEqualTo("ann: hi all");
            bobSocket.sendClose(1000, "bye").get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(ann.next()).isEqualTo("bob left");
            java.util.concurrent.CompletableFuture<java.net.http.WebSocket> stranger = client.newWebSocketBuilder()
                    .buildAsync(lobby, new ChatClient());
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> stranger.get(5, java.util.concurrent.TimeUnit.SECONDS))
                    .hasCauseInstanceOf(java.net.http.WebSocketHandshakeException.class);
            java.net.http.WebSocketHandshakeException refused = (java.net.http.WebSocketHandshakeException) stranger.handle((ok, e) -> e.getCause()).get();
            assertThat(refused.getResponse().statusCode()).isEqualTo(401);
            annSocket.sendClose(1000, "").get(5, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void roomFollowerHearsTheChatRoomThroughSpindlesClient() throws Exception {
        Object chat = readme.load("ChatRoom").getDeclaredConstructor().newInstance();
        Router routes = (Router) chat.getClass().getMethod("routes").invoke(chat);
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start();
             dev.spindle.core.Client client = dev.spindle.core.Client.create()) {
            String lobby = "ws://127.0.0.1:" + server.port() + "/chat/lobby";
            java.util.concurrent.BlockingQueue<String> heard = new java.util.concurrent.LinkedBlockingQueue<>();
            java.util.function.Consumer<String> lines = heard::add;
            java.util.concurrent.CompletionStage<?> opening = (java.util.concurrent.CompletionStage<?>) call("RoomFollower", "follow",
                    new Class<?>[] {dev.spindle.core.Client.class, String.class, String.class, java.util.function.Consumer.class},
                    client, lobby, "cy", lines);
            dev.spindle.core.WebSocket socket = (dev.spindle.core.WebSocket) opening.toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(socket.subprotocol()).isEqualTo("chat.v1");
            assertThat(heard.poll(5, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("cy joined");
            socket.sendText("hello from a service").toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(heard.poll(5, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("cy: hello from a service");
            socket.close(1000, "done").toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(socket.isOpen()).isFalse();
        }
    }

    @Test
    void healthyServiceAnswersItsProbesAndLeavesTheRotationBeforeItDrains() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean database = new java.util.concurrent.atomic.AtomicBoolean(true);
        dev.spindle.core.Health health = new dev.spindle.core.Health();
        java.util.function.Supplier<Boolean> up = database::get;
        Router routes = (Router) call("HealthyService", "routes",
                new Class<?>[] {dev.spindle.core.Health.class, java.util.function.Supplier.class}, health, up);
        java.time.Duration delay = java.time.Duration.ofSeconds(3);
        HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0).drainDelay(delay), routes).start();
        try {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            HttpResponse<String> ready = get(client, base + "/health/ready");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("{\"status\":\"UP\",\"checks\":{\"database\":\"UP\"}}");
            assertThat(ready.headers().firstValue("Cache-Control")).hasValue("no-store");
            database.set(false);
            HttpResponse<String> down = get(client, base + "/health/ready");
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body()).isEqualTo("{\"status\":\"DOWN\",\"checks\":{\"database\":\"DOWN\"}}");
            assertThat(get(client, base + "/health/live").statusCode()).as("liveness does not depend on the database").isEqualTo(200);
            database.set(true);
            assertThat(get(client, base + "/health/ready").statusCode()).isEqualTo(200);

            long closing = System.nanoTime();
            Thread closer = Thread.ofPlatform().start(server::close);
            HttpResponse<String> draining = get(client, base + "/health/ready");
            while (draining.statusCode() == 200 && System.nanoTime() - closing < java.util.concurrent.TimeUnit.SECONDS.toNanos(2)) {
                Thread.sleep(10);
                draining = get(client, base + "/health/ready");
            }
            assertThat(draining.statusCode()).as("readiness once the close began").isEqualTo(503);
            assertThat(draining.body()).contains("draining");
            HttpResponse<String> hello = get(client, base + "/hello");
            assertThat(System.nanoTime() - closing).as("answered within the delay").isLessThan(delay.toNanos());
            assertThat(hello.body()).as("still served during the delay").isEqualTo("Hello");
            closer.join(delay.plusSeconds(15).toMillis());
            assertThat(closer.isAlive()).as("close() returned").isFalse();
            assertThat(System.nanoTime() - closing).as("the drain came after the delay").isGreaterThanOrEqualTo(delay.toNanos());
        } finally {
            server.close();
        }
    }
}
