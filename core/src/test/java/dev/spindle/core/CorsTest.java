// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.RawResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CorsTest {
    private static final Cors EXACT = Cors.builder()
            .allowOrigin("https://app.example.com")
            .allowOriginPattern("https://*.example.org")
            .allowMethods("GET", "PUT")
            .allowHeaders("Content-Type", "X-Token")
            .exposeHeaders("X-Request-Id")
            .maxAge(Duration.ofMinutes(10))
            .build();
    private static final Cors CREDENTIALS = Cors.builder().allowAnyOrigin().allowCredentials().allowAnyHeader().build();
    private static final Cors ANY = Cors.builder().allowAnyOrigin().build();

    /** A request through a CORS configuration: the status, and each header's values (an empty list: absent). */
    record Case(String name, Cors cors, String method, String target, String headers, int status, Map<String, List<String>> expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("allowed origin, simple GET", EXACT, "GET", "/items", "Origin: https://app.example.com\r\n", 200, Map.of(
                        "Access-Control-Allow-Origin", List.of("https://app.example.com"),
                        "Access-Control-Expose-Headers", List.of("X-Request-Id"),
                        "Access-Control-Allow-Credentials", List.of(),
                        "Vary", List.of("Origin"))),
                new Case("pattern origin", EXACT, "GET", "/items", "Origin: https://a.b.example.org\r\n", 200, Map.of(
                        "Access-Control-Allow-Origin", List.of("https://a.b.example.org"))),
                new Case("pattern does not match the bare domain", EXACT, "GET", "/items", "Origin: https://example.org\r\n", 200, Map.of(
                        "Access-Control-Allow-Origin", List.of())),
                new Case("pattern does not match another scheme", EXACT, "GET", "/items", "Origin: http://a.example.org\r\n", 200, Map.of(
                        "Access-Control-Allow-Origin", List.of())),
                new Case("pattern does not match a suffix trick", EXACT, "GET", "/items", "Origin: https://evil.com/.example.org\r\n", 200,
                        Map.of("Access-Control-Allow-Origin", List.of())),
                new Case("refused origin: served without CORS headers", EXACT, "GET", "/items", "Origin: https://evil.example.com\r\n", 200,
                        Map.of("Access-Control-Allow-Origin", List.of(), "Vary", List.of("Origin"))),
                new Case("no origin: not a CORS request", EXACT, "GET", "/items", "", 200, Map.of(
                        "Access-Control-Allow-Origin", List.of(), "Vary", List.of("Origin"))),
                new Case("preflight allowed", EXACT, "OPTIONS", "/items",
                        "Origin: https://app.example.com\r\nAccess-Control-Request-Method: PUT\r\nAccess-Control-Request-Headers: content-type, x-token\r\n",
                        204, Map.of(
                                "Access-Control-Allow-Origin", List.of("https://app.example.com"),
                                "Access-Control-Allow-Methods", List.of("GET, PUT"),
                                "Access-Control-Allow-Headers", List.of("Content-Type, X-Token"),
                                "Access-Control-Max-Age", List.of("600"),
                                "Vary", List.of("Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"))),
                new Case("preflight of a method not allowed", EXACT, "OPTIONS", "/items",
                        "Origin: https://app.example.com\r\nAccess-Control-Request-Method: DELETE\r\n", 403, Map.of(
                                "Access-Control-Allow-Origin", List.of(), "Access-Control-Allow-Methods", List.of())),
                new Case("preflight of a header not allowed", EXACT, "OPTIONS", "/items",
                        "Origin: https://app.example.com\r\nAccess-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: X-Other\r\n",
                        403, Map.of("Access-Control-Allow-Origin", List.of())),
                new Case("preflight of a refused origin", EXACT, "OPTIONS", "/items",
                        "Origin: https://evil.example.com\r\nAccess-Control-Request-Method: GET\r\n", 403, Map.of(
                                "Access-Control-Allow-Origin", List.of())),
                new Case("plain OPTIONS is no preflight", EXACT, "OPTIONS", "/items", "Origin: https://app.example.com\r\n", 405, Map.of(
                        "Access-Control-Allow-Origin", List.of("https://app.example.com"))),
                new Case("an error answer keeps the headers", EXACT, "GET", "/fails", "Origin: https://app.example.com\r\n", 500, Map.of(
                        "Access-Control-Allow-Origin", List.of("https://app.example.com"))),
                new Case("a 404 keeps the headers", EXACT, "GET", "/nowhere", "Origin: https://app.example.com\r\n", 404, Map.of(
                        "Access-Control-Allow-Origin", List.of("https://app.example.com"))),
                new Case("credentials: the origin named, never *", CREDENTIALS, "GET", "/items", "Origin: https://x.test\r\n", 200, Map.of(
                        "Access-Control-Allow-Origin", List.of("https://x.test"),
                        "Access-Control-Allow-Credentials", List.of("true"),
                        "Vary", List.of("Origin"))),
                new Case("any header: the ones asked for", CREDENTIALS, "OPTIONS", "/items",
                        "Origin: https://x.test\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: X-A, X-B\r\n", 204,
                        Map.of("Access-Control-Allow-Headers", List.of("X-A, X-B"), "Access-Control-Allow-Credentials", List.of("true"))),
                new Case("any origin without credentials: *", ANY, "GET", "/items", "Origin: https://x.test\r\n", 200, Map.of(
                        "Access-Control-Allow-Origin", List.of("*"), "Vary", List.of())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void corsProtocol(Case c) throws Exception {
        Router router = Router.builder()
                .filter(c.cors())
                .get("/items", (req, res) -> res.text("items"))
                .put("/items", (req, res) -> res.text("put"))
                .post("/items", (req, res) -> res.text("posted"))
                .get("/fails", (req, res) -> {
                    throw new IllegalStateException("test: a handler failure (expected in this test's log)");
                })
                .build();
        HttpConnection connection = new HttpConnection(router, ServerConfig.defaults());
        feed(connection, c.method() + " " + c.target() + " HTTP/1.1\r\nHost: t\r\n" + c.headers() + "\r\n");
        List<RawResponse> got = parseAll(drainAll(connection));
        assertThat(got).hasSize(1);
        RawResponse r = got.get(0);
        assertThat(r.status()).isEqualTo(c.status());
        c.expected().forEach((name, values) -> assertThat(r.headers(name)).as(name).containsExactlyElementsOf(values));
    }

    @Test
    void aCorsFilterNeedsAnOriginAndWellFormedOnes() {
        assertThatThrownBy(() -> Cors.builder().build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("allowed origin");
        assertThatThrownBy(() -> Cors.builder().allowOrigin("https://a.test/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cors.builder().allowOrigin("a.test")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cors.builder().allowOriginPattern("https://a.test")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cors.builder().allowOriginPattern("*://a.test")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cors.builder().maxAge(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
