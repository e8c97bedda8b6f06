// SPDX-License-Identifier: Apache-2.0
package dev.spindle.compression.zstd;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import dev.spindle.blocking.VirtualThreadServer;
import dev.spindle.core.Compression;
import dev.spindle.core.ContentEncoding;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.nio.MultiLoopServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * zstd registered beside gzip on real servers (a thread per connection, event loops), over
 * HTTP/1.1 and h2: clients that accept zstd get it, others gzip, and curl {@code --compressed}
 * (which offers zstd) decodes the identity's bytes.
 */
class ZstdServerTest {
    static final String JSON = "{\"items\":[" + "{\"id\":12345,\"name\":\"a fairly repetitive item\"},".repeat(90) + "{}]}";

    static Router routes() {
        return Router.builder()
                .compression(Compression.defaults().encodings(ZstdEncoding.create(), ContentEncoding.gzip()))
                .get("/json", (req, res) -> res.jsonText(JSON))
                .get("/stream", (req, res) -> res.contentType("application/json").stream(out -> {
                    byte[] bytes = JSON.getBytes(StandardCharsets.UTF_8);
                    for (int i = 0; i < bytes.length; i += 700) {
                        out.write(bytes, i, Math.min(700, bytes.length - i));
                        out.flush();
                    }
                }))
                .build();
    }

    static Stream<Arguments> servers() {
        BiFunction<ServerConfig, Router, HttpServer> virtual = VirtualThreadServer::new;
        BiFunction<ServerConfig, Router, HttpServer> loops = MultiLoopServer::new;
        return Stream.of(Arguments.of("VirtualThreadServer", virtual), Arguments.of("MultiLoopServer", loops));
    }

    static byte[] decode(String coding, byte[] body) throws IOException {
        InputStream in = switch (coding) {
            case "zstd" -> new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(body));
            case "gzip" -> new GZIPInputStream(new ByteArrayInputStream(body));
            default -> throw new AssertionError(coding);
        };
        try (in) {
            return in.readAllBytes();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void clientsGetZstdWhereTheyAcceptIt(String name, BiFunction<ServerConfig, Router, HttpServer> server) throws Exception {
        try (HttpServer s = server.apply(ServerConfig.defaults().port(0).workers(2), routes()).start();
             HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            for (HttpClient.Version version : HttpClient.Version.values()) {
                for (String path : new String[] {"/json", "/stream"}) {
                    for (String[] row : new String[][] {{"gzip, zstd", "zstd"}, {"gzip", "gzip"}, {"zstd;q=0.5, gzip", "gzip"}, {"*", "zstd"}}) {
                        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                                .version(version).header("Accept-Encoding", row[0]).timeout(Duration.ofSeconds(10)).build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                        assertThat(r.statusCode()).isEqualTo(200);
                        assertThat(r.headers().firstValue("content-encoding")).as("%s %s %s", version, path, row[0]).hasValue(row[1]);
                        assertThat(r.headers().allValues("vary")).contains("Accept-Encoding");
                        assertThat(new String(decode(row[1], r.body()), StandardCharsets.UTF_8)).isEqualTo(JSON);
                    }
                }
            }
            for (String version : new String[] {"--http1.1", "--http2-prior-knowledge"}) {
                Process p = new ProcessBuilder(List.of("curl", "-sS", "--max-time", "15", "--compressed", version, "-D", "-",
                        "http://127.0.0.1:" + s.port() + "/json")).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(p.exitValue()).as("curl: %s", err).isZero();
                int end = out.indexOf("\r\n\r\n");
                assertThat(out.substring(0, end).toLowerCase(Locale.ROOT)).contains("content-encoding: zstd");
                assertThat(out.substring(end + 4)).isEqualTo(JSON);
            }
        }
    }
}
