// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientResponse;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client connection against Spindle's own server connection, in memory: what the client
 * writes is fed to a server-side core connection ({@link Connection#open}), and what the server
 * writes back is fed to the client, in small pieces so responses arrive split. No sockets, no
 * threads.
 */
class ClientServerInteropTest {
    private static final String STREAMED = "a streamed body, pulled from an input stream of unknown length, ".repeat(20);

    private static final Router ROUTES = Router.builder()
            .get("/hello", (req, res) -> res.text("Hello, World!"))
            .post("/echo", (req, res) -> res.contentType(req.header("Content-Type")).body(req.bodyBytes()))
            .get("/stream", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(new SlowStream(STREAMED), -1))
            .get("/headers", (req, res) -> res.text(req.header("Host") + "|" + req.header("X-Trace")))
            .build();

    /** Gives its bytes at most 100 at a time, so the server sends several chunks. */
    private static final class SlowStream extends InputStream {
        private final byte[] data;
        private int at;

        SlowStream(String text) {
            this.data = text.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public int read() {
            return at < data.length ? data[at++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (at == data.length) {
                return -1;
            }
            int n = Math.min(Math.min(len, 100), data.length - at);
            System.arraycopy(data, at, b, off, n);
            at += n;
            return n;
        }
    }

    private final Connection server = Connection.open(ROUTES, ServerConfig.defaults());

    private static ClientConnection client(int pipelined) {
        ClientConnection c = new ClientConnection("127.0.0.1:8080", ClientSettings.defaults().maxPipelined(pipelined));
        assertThat(c.connected()).isEqualTo(Next.READ);
        return c;
    }

    /** Takes what {@code from} has to write, reporting it written. */
    private static byte[] take(Connection from) {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (ByteBuffer out = from.outbound(); out.hasRemaining(); out = from.outbound()) {
            byte[] b = new byte[out.remaining()];
            out.get(b);
            all.writeBytes(b);
            from.written(b.length);
        }
        return all.toByteArray();
    }

    /** Moves bytes both ways until neither side has any; the server's in 7-byte pieces. */
    private void exchange(ClientConnection client) {
        for (int round = 0; round < 10_000; round++) {
            byte[] request = take(client);
            if (request.length > 0) {
                server.received(ByteBuffer.wrap(request));
            }
            byte[] response = take(server);
            for (int i = 0; i < response.length; i += 7) {
                client.received(ByteBuffer.wrap(response, i, Math.min(7, response.length - i)));
            }
            if (request.length == 0 && response.length == 0) {
                if (server.next() == Next.LINGER || server.next() == Next.CLOSE) {
                    client.endOfInput();
                }
                return;
            }
        }
        throw new AssertionError("the two sides never went quiet");
    }

    @Test
    void get() {
        ClientConnection client = client(1);
        CompletableFuture<ClientResponse> f = client.send(ClientRequest.get("/hello"));
        exchange(client);
        ClientResponse r = f.join();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("Hello, World!");
        assertThat(r.header("Content-Length")).isEqualTo("13");
        assertThat(r.header("server")).isEqualTo("spindle");
        assertThat(client.isIdle()).as("kept alive").isTrue();
    }

    @Test
    void postWithABody() {
        ClientConnection client = client(1);
        byte[] body = "{\"order\":42,\"note\":\"caf\u00e9\"}".getBytes(StandardCharsets.UTF_8);
        CompletableFuture<ClientResponse> f = client.send(new ClientRequest("POST", "/echo")
                .header("Content-Type", "application/json").body(body));
        exchange(client);
        ClientResponse r = f.join();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("application/json");
        assertThat(r.bodyBytes()).isEqualTo(body);
    }

    @Test
    void headHasTheLengthButNoBody() {
        ClientConnection client = client(1);
        CompletableFuture<ClientResponse> head = client.send(new ClientRequest("HEAD", "/hello"));
        exchange(client);
        assertThat(head.join().status()).isEqualTo(200);
        assertThat(head.join().header("Content-Length")).isEqualTo("13");
        assertThat(head.join().bodyLength()).isZero();
        // the connection is still in step: the next response is read as a response of its own
        CompletableFuture<ClientResponse> get = client.send(ClientRequest.get("/hello"));
        exchange(client);
        assertThat(get.join().bodyText()).isEqualTo("Hello, World!");
    }

    @Test
    void notFound() {
        ClientConnection client = client(1);
        CompletableFuture<ClientResponse> f = client.send(ClientRequest.get("/missing"));
        exchange(client);
        assertThat(f.join().status()).isEqualTo(404);
        assertThat(f.join().bodyText()).contains("404");
        assertThat(client.isIdle()).isTrue();
    }

    @Test
    void aChunkedStreamedResponse() {
        ClientConnection client = client(1);
        CompletableFuture<ClientResponse> f = client.send(ClientRequest.get("/stream"));
        exchange(client);
        ClientResponse r = f.join();
        assertThat(r.header("Transfer-Encoding")).isEqualTo("chunked");
        assertThat(r.header("Content-Length")).isNull();
        assertThat(r.bodyText()).isEqualTo(STREAMED);
        assertThat(client.isIdle()).isTrue();
    }

    @Test
    void hostAndFieldsReachTheServer() {
        ClientConnection client = client(1);
        CompletableFuture<ClientResponse> f = client.send(ClientRequest.get("/headers").header("X-Trace", "t-1"));
        exchange(client);
        assertThat(f.join().bodyText()).isEqualTo("127.0.0.1:8080|t-1");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() {
        ClientConnection client = client(8);
        List<CompletableFuture<ClientResponse>> futures = new ArrayList<>();
        futures.add(client.send(ClientRequest.get("/hello")));
        futures.add(client.send(new ClientRequest("HEAD", "/hello")));
        futures.add(client.send(ClientRequest.get("/missing")));
        futures.add(client.send(ClientRequest.get("/stream")));
        futures.add(client.send(ClientRequest.get("/headers").header("X-Trace", "4")));
        futures.add(client.send(new ClientRequest("POST", "/echo").header("Content-Type", "text/plain")
                .body("last".getBytes(StandardCharsets.US_ASCII))));
        assertThat(client.inFlight()).as("all pipelined: the POST is the last").isEqualTo(6);
        exchange(client);
        assertThat(futures.get(0).join().bodyText()).isEqualTo("Hello, World!");
        assertThat(futures.get(1).join().bodyLength()).isZero();
        assertThat(futures.get(2).join().status()).isEqualTo(404);
        assertThat(futures.get(3).join().bodyText()).isEqualTo(STREAMED);
        assertThat(futures.get(4).join().bodyText()).isEqualTo("127.0.0.1:8080|4");
        assertThat(futures.get(5).join().bodyText()).isEqualTo("last");
        assertThat(client.isIdle()).isTrue();
    }

    @Test
    void askingForACloseEndsBothSides() {
        ClientConnection client = client(1);
        CompletableFuture<ClientResponse> f = client.send(ClientRequest.get("/hello").closeConnection());
        exchange(client);
        assertThat(f.join().header("Connection")).isEqualTo("close");
        assertThat(f.join().bodyText()).isEqualTo("Hello, World!");
        assertThat(client.isClosed()).isTrue();
        assertThat(client.next()).isEqualTo(Next.CLOSE);
        assertThat(server.next()).as("the server finished and lingers").isIn(Next.LINGER, Next.CLOSE);
    }
}
