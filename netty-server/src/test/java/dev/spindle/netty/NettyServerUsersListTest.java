// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.references.support.Fixtures;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.HexFormat;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /users-list}, the json-gzip scenario's route: the same bytes as Spindle's benchmark app,
 * gzip-compressed by Netty's {@code HttpContentCompressor} when the request accepts gzip, and
 * nothing else compressed.
 */
class NettyServerUsersListTest {
    /** Of the document's bytes; scripts/lib/test_bench.py pins the same digest for bench.py's copy. */
    static final String SHA256 = "c914468acd53b6a6c09952fe64f52f85c671680b24f9c8fb911098f6f49694ea";

    private static NettyServer server;
    private static HttpClient client;

    @BeforeAll
    static void start() throws IOException {
        server = new NettyServer("127.0.0.1", 0, 1).start();
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static HttpResponse<byte[]> get(String path, String acceptEncoding) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.address().getPort() + path));
        if (acceptEncoding != null) {
            request.header("Accept-Encoding", acceptEncoding);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void theDocumentIsSpindlesAppsByteForByte() throws Exception {
        byte[] doc = Fixtures.usersList();
        assertThat(doc).isEqualTo(BenchmarkApp.usersList());
        assertThat(doc.length).isBetween(2000, 2500);
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(doc))).isEqualTo(SHA256);
    }

    @Test
    void gzipWhenAccepted() throws Exception {
        HttpResponse<byte[]> response = get("/users-list", "gzip");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.body().length).isLessThan(Fixtures.usersList().length / 2);
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(response.body()))) {
            assertThat(in.readAllBytes()).isEqualTo(Fixtures.usersList());
        }
    }

    @Test
    void identityWhenNotAccepted() throws Exception {
        HttpResponse<byte[]> response = get("/users-list", null);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(response.body()).isEqualTo(Fixtures.usersList());
    }

    @Test
    void otherRoutesAreNotCompressed() throws Exception {
        for (String path : new String[] {"/plaintext", "/json"}) {
            HttpResponse<byte[]> response = get(path, "gzip");
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Encoding")).as(path).isEmpty();
        }
    }

    /**
     * Pipelined behind an answer that waits (the requests queued in the handler), the first
     * {@code /users-list} puts the compressor in: every answer still comes in order, and only the
     * list's is compressed.
     */
    @Test
    void pipelinedBehindAWaitingAnswer() throws Exception {
        String one = "GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n";
        try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write((one.formatted("/delay/20") + one.formatted("/users-list") + one.formatted("/plaintext")
                    + one.formatted("/users-list")).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            List<String> codings = new ArrayList<>();
            List<byte[]> bodies = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String coding = "";
                int length = -1;
                boolean chunked = false;
                assertThat(line(in)).startsWith("HTTP/1.1 200");
                for (String h; !(h = line(in)).isEmpty(); ) {
                    String name = h.substring(0, h.indexOf(':')).toLowerCase(Locale.ROOT);
                    String value = h.substring(h.indexOf(':') + 1).strip();
                    switch (name) {
                        case "content-encoding" -> coding = value;
                        case "content-length" -> length = Integer.parseInt(value);
                        case "transfer-encoding" -> chunked = value.equalsIgnoreCase("chunked");
                        default -> { }
                    }
                }
                byte[] body;
                if (chunked) {
                    ByteArrayOutputStream all = new ByteArrayOutputStream();
                    for (int n; (n = Integer.parseInt(line(in).strip(), 16)) > 0; line(in)) {
                        all.write(in.readNBytes(n));
                    }
                    line(in);
                    body = all.toByteArray();
                } else {
                    body = in.readNBytes(length);
                }
                codings.add(coding);
                bodies.add(body);
            }
            assertThat(codings).containsExactly("", "gzip", "", "gzip");
            assertThat(new String(bodies.get(0), StandardCharsets.US_ASCII)).isEqualTo("{\"delayed\":20}");
            assertThat(new String(bodies.get(2), StandardCharsets.US_ASCII)).isEqualTo("Hello, World!");
            for (int i : new int[] {1, 3}) {
                try (GZIPInputStream gz = new GZIPInputStream(new ByteArrayInputStream(bodies.get(i)))) {
                    assertThat(gz.readAllBytes()).isEqualTo(Fixtures.usersList());
                }
            }
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new IOException("connection closed after " + b);
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }
}
