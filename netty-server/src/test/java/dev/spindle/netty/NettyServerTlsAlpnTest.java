// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.references.support.BenchmarkLimits;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Netty reference's TLS mode ({@code -Dspindle.tls.*}, as the matrix's TLS start sets them):
 * a client offering h2 is answered in HTTP/2, one offering only http/1.1 in HTTP/1.1, on the same
 * routes.
 */
class NettyServerTlsAlpnTest {
    private static final String PASSWORD = "test-password";
    @TempDir
    static Path dir;
    private static NettyServer server;

    @BeforeAll
    static void start() throws Exception {
        Path store = dir.resolve("keystore.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "test", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1", "-storetype", "PKCS12", "-validity", "2", "-keystore", store.toString(),
                "-storepass", PASSWORD).redirectErrorStream(true).start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(new String(keytool.getInputStream().readAllBytes())).isZero();
        System.setProperty("spindle.tls.keystore", store.toString());
        System.setProperty("spindle.tls.password", PASSWORD);
        try {
            server = new NettyServer("127.0.0.1", 0, 1).start();
        } finally {
            System.clearProperty("spindle.tls.keystore");
            System.clearProperty("spindle.tls.password");
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest(name = "offering {0}: GET {1} answered in {0}")
    @CsvSource({
        "HTTP_2, /plaintext, 'Hello, World!'",
        "HTTP_2, /delay/20, '{\"delayed\":20}'",
        "HTTP_1_1, /plaintext, 'Hello, World!'",
        "HTTP_1_1, /json, '{\"message\":\"Hello, World!\"}'",
    })
    void alpnChoosesTheProtocol(HttpClient.Version offered, String path, String body) throws Exception {
        SSLContext trustAll = SSLContext.getInstance("TLS");
        trustAll.init(null, new TrustManager[] {new TrustEverything()}, new SecureRandom());
        try (HttpClient client = HttpClient.newBuilder().version(offered).sslContext(trustAll).build()) {
            URI uri = URI.create("https://127.0.0.1:" + server.address().getPort() + path);
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.version()).isEqualTo(offered);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(body);
        }
    }

    /** The file goes as bytes through TLS (a file region cannot), on either protocol. */
    @ParameterizedTest(name = "offering {0}: GET /download, byte i is i % 251")
    @CsvSource({"HTTP_2", "HTTP_1_1"})
    void downloadIsByteExact(HttpClient.Version offered) throws Exception {
        SSLContext trustAll = SSLContext.getInstance("TLS");
        trustAll.init(null, new TrustManager[] {new TrustEverything()}, new SecureRandom());
        try (HttpClient client = HttpClient.newBuilder().version(offered).sslContext(trustAll).build()) {
            URI uri = URI.create("https://127.0.0.1:" + server.address().getPort() + "/download");
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(response.version()).isEqualTo(offered);
            byte[] body = response.body();
            assertThat(body).hasSize(BenchmarkLimits.DOWNLOAD_BYTES);
            for (int i = 0; i < body.length; i++) {
                if ((body[i] & 0xff) != i % 251) {
                    throw new AssertionError("byte " + i + " is " + (body[i] & 0xff));
                }
            }
        }
    }

    /** The test's own self-signed key: nothing to verify. */
    private static final class TrustEverything extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
