// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.testing.TestTls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import javax.net.ssl.SSLServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The client's options that act on whole exchanges, against raw servers, each through
 * {@code call()} and {@code send()}: redirects ({@link ClientConfig#followRedirects(int)}: which
 * are followed, with which method, body and fields, and which are the answer) and decompression
 * ({@link ClientConfig#decompression(boolean)}).
 */
class ClientOptionsTest {
    private ServerSocket server;
    private ServerSocket other;
    private SSLServerSocket secure;
    private final Client following = Client.create(ClientConfig.defaults().followRedirects(3)
            .trustStore(TestTls.localhost().trustStore(), TestTls.PASSWORD.toCharArray()));
    private final Client plain = Client.create();
    private final Client decoding = Client.create(ClientConfig.defaults().decompression(true).maxResponseBodySize(1 << 20));

    @BeforeEach
    void start() throws IOException {
        server = serve(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        other = serve(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        secure = (SSLServerSocket) serverContext().getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        serve(secure);
    }

    @AfterEach
    void stop() throws IOException {
        following.close();
        plain.close();
        decoding.close();
        server.close();
        other.close();
        secure.close();
    }

    private static javax.net.ssl.SSLContext serverContext() {
        try {
            javax.net.ssl.KeyManagerFactory keys = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            keys.init(java.security.KeyStore.getInstance(TestTls.keyStore().toFile(), TestTls.PASSWORD.toCharArray()),
                    TestTls.PASSWORD.toCharArray());
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (IOException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The raw server's routes: {@code /to/<status>/<where>} answers that status with
     * {@code Location: <where>}, {@code /chain/<n>} a 302 to {@code /chain/<n-1>} down to a 200 at 0, ({@code ~} for {@code /}, {@code other} for the other server's
     * {@code /seen}, {@code plain} for the plain server's from the TLS one); {@code /seen} answers
     * what it saw: method, the body's length, and the fields {@code Authorization}, {@code Cookie},
     * {@code Content-Type} and {@code X-Trace} ({@code -} for a missing one).
     */
    private String location(String where) {
        return switch (where) {
            case "other" -> "http://127.0.0.1:" + other.getLocalPort() + "/seen";
            case "plain" -> "http://127.0.0.1:" + server.getLocalPort() + "/seen";
            default -> where.replace('~', '/');
        };
    }

    private ServerSocket serve(ServerSocket listener) {
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Socket s = listener.accept();
                    Thread.ofVirtual().start(() -> exchange(s));
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        return listener;
    }

    private void exchange(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            while (true) {
                String requestLine = line(in);
                if (requestLine == null) {
                    return;
                }
                Map<String, String> fields = new LinkedHashMap<>();
                for (String l; (l = line(in)) != null && !l.isEmpty(); ) {
                    int colon = l.indexOf(':');
                    fields.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
                }
                int length = Integer.parseInt(fields.getOrDefault("content-length", "0"));
                byte[] body = in.readNBytes(length);
                String[] parts = requestLine.split(" ");
                String path = parts[1];
                String answer;
                if (path.startsWith("/gzip/")) {
                    out.write(gzipAnswer(path.substring(6), fields.getOrDefault("accept-encoding", "-")));
                    out.flush();
                    continue;
                }
                if (path.startsWith("/chain/")) {
                    int left = Integer.parseInt(path.substring(7));
                    answer = left == 0 ? "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nchain end"
                            : "HTTP/1.1 302 Found\r\nLocation: /chain/" + (left - 1) + "\r\nContent-Length: 5\r\n\r\nmoved";
                } else if (path.startsWith("/to/")) {
                    String[] to = path.split("/", 4);
                    answer = "HTTP/1.1 " + to[2] + " Moved\r\nLocation: " + location(to[3]) + "\r\nContent-Length: 5\r\n\r\nmoved";
                } else {
                    String seen = parts[0] + " " + body.length + " " + fields.getOrDefault("authorization", "-") + " "
                            + fields.getOrDefault("cookie", "-") + " " + fields.getOrDefault("content-type", "-") + " "
                            + fields.getOrDefault("x-trace", "-");
                    answer = "HTTP/1.1 200 OK\r\nContent-Length: " + seen.length() + "\r\n\r\n" + seen;
                }
                out.write(answer.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            // the client went away
        }
    }

    /** {@code /gzip/text} in gzip when offered, else plain; {@code /gzip/bomb} 4 MiB of zeros in gzip; {@code /gzip/corrupt} no gzip at all. */
    private static byte[] gzipAnswer(String kind, String acceptEncoding) throws IOException {
        byte[] body;
        boolean gzip = acceptEncoding.contains("gzip");
        switch (kind) {
            case "bomb" -> {
                body = gzip(new byte[4 << 20]);
                gzip = true;
            }
            case "corrupt" -> {
                body = "this is not gzip".getBytes(StandardCharsets.US_ASCII);
                gzip = true;
            }
            default -> {
                byte[] text = ("hello, accept-encoding " + acceptEncoding).getBytes(StandardCharsets.US_ASCII);
                body = gzip ? gzip(text) : text;
            }
        }
        byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n" + (gzip ? "Content-Encoding: gzip\r\n" : "")
                + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] all = java.util.Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(out)) {
            z.write(bytes);
        }
        return out.toByteArray();
    }

    static Stream<Arguments> decodings() {
        return Stream.of(
                Arguments.of("gzip offered and decoded", "decoding", "/gzip/text", null,
                        "200 hello, accept-encoding gzip | encoding - | length -"),
                Arguments.of("the caller's own Accept-Encoding stands", "decoding", "/gzip/text", "identity",
                        "200 hello, accept-encoding identity | encoding - | length 31"),
                Arguments.of("off: nothing offered, nothing decoded", "plain", "/gzip/text", null,
                        "200 hello, accept-encoding - | encoding - | length 24"),
                Arguments.of("a body that decodes past the limit", "decoding", "/gzip/bomb", null, "BODY_TOO_LARGE"),
                Arguments.of("a body that is no gzip", "decoding", "/gzip/corrupt", null, "MALFORMED_RESPONSE"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("decodings")
    void gzipResponsesAreDecodedWhenAsked(String name, String which, String path, String acceptEncoding, String expected) throws Exception {
        Client client = which.equals("decoding") ? decoding : plain;
        String url = "http://127.0.0.1:" + server.getLocalPort() + path;
        for (boolean async : new boolean[] {false, true}) {
            Client.RequestBuilder r = client.get(url);
            if (acceptEncoding != null) {
                r.header("Accept-Encoding", acceptEncoding);
            }
            String outcome;
            try {
                ClientResponse response = async ? r.send().toCompletableFuture().get() : r.call();
                outcome = response.status() + " " + response.bodyText() + " | encoding " + orDash(response.header("Content-Encoding"))
                        + " | length " + orDash(response.header("Content-Length"));
            } catch (ClientException e) {
                outcome = e.reason().name();
            } catch (java.util.concurrent.ExecutionException e) {
                outcome = e.getCause() instanceof ClientException c ? c.reason().name() : e.getCause().toString();
            }
            assertThat(outcome).as(async ? "send()" : "call()").isEqualTo(expected);
        }
    }

    private static String orDash(String value) {
        return value == null ? "-" : value;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) >= 0; ) {
            if (c == '\n') {
                return b.toString().stripTrailing();
            }
            b.append((char) c);
        }
        return b.isEmpty() ? null : b.toString();
    }

    static Stream<Arguments> redirects() {
        return Stream.of(
                Arguments.of("a 302 to a path, followed", "GET", "/to/302/~seen", "200 GET 0 secret c=1 - 7"),
                Arguments.of("a 303 after a POST: a GET without body", "POST", "/to/303/~seen", "200 GET 0 secret c=1 - 7"),
                Arguments.of("a 301 after a POST: a GET, as browsers do", "POST", "/to/301/~seen", "200 GET 0 secret c=1 - 7"),
                Arguments.of("a 307 keeps the method and the body", "POST", "/to/307/~seen", "200 POST 5 secret c=1 text/plain 7"),
                Arguments.of("a 308 keeps the method and the body", "PUT", "/to/308/~seen", "200 PUT 5 secret c=1 text/plain 7"),
                Arguments.of("to another origin: no credentials", "GET", "/to/302/other", "200 GET 0 - - - 7"),
                Arguments.of("a chain of 3, the limit", "GET", "/chain/3", "200 chain end"),
                Arguments.of("a chain of 4: past the limit the last redirect is the answer", "GET", "/chain/4", "302 moved"),
                Arguments.of("a 302 without a scheme it speaks", "GET", "/to/302/ftp:~~127.0.0.1~x", "302 moved"),
                Arguments.of("a 300 is not followed", "GET", "/to/300/~seen", "300 moved"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("redirects")
    void redirectsAreFollowedAsTheirStatusSays(String name, String method, String path, String expected) throws Exception {
        String url = "http://127.0.0.1:" + server.getLocalPort() + path;
        assertThat(outcome(request(following, method, url).call())).as("call()").isEqualTo(expected);
        assertThat(outcome(request(following, method, url).send().toCompletableFuture().get())).as("send()").isEqualTo(expected);
    }

    private static Client.RequestBuilder request(Client client, String method, String url) {
        Client.RequestBuilder r = client.request(method, url).header("Authorization", "secret").header("Cookie", "c=1").header("X-Trace", "7");
        if (!method.equals("GET")) {
            r.header("Content-Type", "text/plain").body("hello");
        }
        return r;
    }

    private static String outcome(ClientResponse r) {
        return r.status() + " " + r.bodyText();
    }

    @Test
    void nothingIsFollowedByDefault() throws Exception {
        assertThat(outcome(plain.get("http://127.0.0.1:" + server.getLocalPort() + "/to/302/~seen").call())).isEqualTo("302 moved");
    }

    @Test
    void fromHttpsToHttpNothingIsFollowed() throws Exception {
        String url = "https://127.0.0.1:" + secure.getLocalPort() + "/to/302/plain";
        assertThat(outcome(following.get(url).call())).isEqualTo("302 moved");
        assertThat(outcome(following.get("https://127.0.0.1:" + secure.getLocalPort() + "/to/302/~seen").call()))
                .as("within https it is").isEqualTo("200 GET 0 - - - -");
    }

    @Test
    void aStreamedBodyIsNotSentTwice() throws Exception {
        String url = "http://127.0.0.1:" + server.getLocalPort() + "/to/307/~seen";
        ClientResponse r = following.post(url).body(new ByteArrayInputStream("hello".getBytes(StandardCharsets.US_ASCII)), 5).call();
        assertThat(outcome(r)).isEqualTo("307 moved");
    }
}
