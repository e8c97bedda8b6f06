// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.Client;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.WebSocket;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The benchmark app's fan-out routes on a real server, heard through Spindle's client (the
 * benchmark's tools/ws-load drives them; the Netty and Vert.x references serve the same contract).
 */
@Timeout(30)
class BenchmarkBroadcastRoutesTest {
    private final Client client = Client.create();
    private HttpServer server;

    @BeforeEach
    void start() throws Exception {
        // an event stream is in flight until its client is noticed gone (at a heartbeat): do not wait 10 s for it
        ServerConfig config = ServerConfig.defaults().port(0).workers(2).drainTimeout(Duration.ofMillis(500));
        server = new MultiLoopServer(config, BenchmarkApp.routes()).start();
    }

    @AfterEach
    void stop() {
        server.close();
        client.close();
    }

    private String url(String scheme, String path) {
        return scheme + "://127.0.0.1:" + server.port() + path;
    }

    /** Every text message a socket hears, in order. */
    private static final class Heard implements WebSocket.Endpoint {
        final BlockingQueue<String> messages = new LinkedBlockingQueue<>();

        @Override
        public void onText(WebSocket socket, String message) {
            messages.add(message);
        }

        String next() throws InterruptedException {
            return messages.poll(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aMessageToTheRoomReachesEveryMemberTheSenderToo() throws Exception {
        List<Heard> heard = new ArrayList<>();
        List<WebSocket> sockets = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Heard h = new Heard();
            heard.add(h);
            sockets.add(client.webSocket(url("ws", "/ws/broadcast"), h).toCompletableFuture().get(5, TimeUnit.SECONDS));
        }
        sockets.get(1).sendText("to all of you").toCompletableFuture().get(5, TimeUnit.SECONDS);
        for (Heard h : heard) {
            assertThat(h.next()).isEqualTo("to all of you");
        }
        // one leaves; the others still hear, and the one that left hears nothing more
        sockets.get(0).close(1000, "").toCompletableFuture().get(5, TimeUnit.SECONDS);
        sockets.get(0).closed().toCompletableFuture().get(5, TimeUnit.SECONDS);
        sockets.get(2).sendText("second").toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(heard.get(1).next()).isEqualTo("second");
        assertThat(heard.get(2).next()).isEqualTo("second");
        assertThat(heard.get(0).messages.poll(300, TimeUnit.MILLISECONDS)).isNull();
    }

    private int publish(String body) throws Exception {
        return client.post(url("http", "/sse/publish")).body(body).call().status();
    }

    @Test
    void publishedEventsReachEveryStreamInOrder() throws Exception {
        ClientResponse first = client.get(url("http", "/sse/broadcast")).streamResponse().call();
        ClientResponse second = client.get(url("http", "/sse/broadcast")).streamResponse().call();
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.header("Content-Type")).isEqualTo("text/event-stream");
        InputStream firstBody = first.bodyStream();
        InputStream secondBody = second.bodyStream();
        BlockingQueue<String> a = dataLines(firstBody);
        BlockingQueue<String> b = dataLines(secondBody);
        // the head can go out before the stream joins the set: publish until both hear one
        for (int i = 0; a.isEmpty() || b.isEmpty(); i++) {
            assertThat(i).as("published before both streams heard an event").isLessThan(100);
            assertThat(publish("ready")).isEqualTo(204);
            Thread.sleep(50);
        }
        assertThat(publish("one")).isEqualTo(204);
        assertThat(publish("two")).isEqualTo(204);
        for (BlockingQueue<String> heard : List.of(a, b)) {
            assertThat(nextBesides(heard, "data: ready")).isEqualTo("data: one");
            assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("data: two");
        }
        // the client leaves: both streams end, so the server stops without waiting for them
        firstBody.close();
        secondBody.close();
    }

    /** The stream's {@code data:} lines, read by a thread of their own. */
    private static BlockingQueue<String> dataLines(InputStream body) {
        BlockingQueue<String> data = new LinkedBlockingQueue<>();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                lines.lines().filter(line -> line.startsWith("data:")).forEach(data::add);
            } catch (Exception ended) {
                // the server stopped: the test has read what it needed
            }
        });
        return data;
    }

    private static String nextBesides(BlockingQueue<String> lines, String skipped) throws InterruptedException {
        String line;
        do {
            line = lines.poll(5, TimeUnit.SECONDS);
        } while (skipped.equals(line));
        return line;
    }

    @Test
    void anEventIsOneLineOfAtMostOneKibibyte() throws Exception {
        assertThat(publish("two\nlines")).isEqualTo(400);
        assertThat(publish("carriage\rreturn")).isEqualTo(400);
        assertThat(publish("x".repeat(1025))).isEqualTo(413);
        assertThat(publish("x".repeat(1024))).isEqualTo(204);
    }
}
