// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.RawResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

/** Static files from a directory and from the classpath: types, validators, 304, ranges, no escape from the root. */
class StaticFilesTest {
    @TempDir
    static Path dir;
    private static Path root;
    private static byte[] big;
    private static Router router;

    @BeforeAll
    static void files() throws IOException {
        root = Files.createDirectories(dir.resolve("web"));
        Files.writeString(root.resolve("index.html"), "<h1>home</h1>");
        Files.createDirectories(root.resolve("css"));
        Files.writeString(root.resolve("css/site.css"), "body{}");
        Files.writeString(root.resolve("a b.txt"), "spaced");
        Files.writeString(root.resolve(".env"), "SECRET=1");
        Files.writeString(dir.resolve("outside.txt"), "outside the root");
        Files.createSymbolicLink(root.resolve("escape.txt"), dir.resolve("outside.txt"));
        big = new byte[100_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i % 251);
        }
        Files.write(root.resolve("data.bin"), big);
        Files.setLastModifiedTime(root.resolve("data.bin"), FileTime.fromMillis(1_700_000_000_000L));
        router = Router.builder()
                .staticFiles("/static", StaticFiles.directory(root))
                .staticFiles("/cp", StaticFiles.classpath("static-test"))
                .build();
    }

    private static RawResponse get(String target, String... headers) {
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults());
        StringBuilder req = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: t\r\n");
        for (String h : headers) {
            req.append(h).append("\r\n");
        }
        feed(c, req.append("\r\n").toString());
        List<RawResponse> all = parseAll(drainAll(c));
        assertThat(all).hasSize(1);
        return all.get(0);
    }

    private static String text(RawResponse r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    static Stream<Arguments> served() {
        return Stream.of(
                Arguments.of("/static/", "<h1>home</h1>", "text/html; charset=utf-8"),
                Arguments.of("/static/index.html", "<h1>home</h1>", "text/html; charset=utf-8"),
                Arguments.of("/static/css/site.css", "body{}", "text/css; charset=utf-8"),
                Arguments.of("/static/css//site.css", "body{}", "text/css; charset=utf-8"),
                Arguments.of("/static/a%20b.txt", "spaced", "text/plain; charset=utf-8"),
                Arguments.of("/cp/hello.txt", "hello from the classpath\n", "text/plain; charset=utf-8"),
                Arguments.of("/cp/", "<p>cp index</p>\n", "text/html; charset=utf-8"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("served")
    void servesFilesWithTheirTypeAndValidators(String target, String body, String type) {
        RawResponse r = get(target);
        assertThat(r.status()).isEqualTo(200);
        assertThat(text(r)).isEqualTo(body);
        assertThat(r.header("Content-Type")).isEqualTo(type);
        assertThat(r.header("ETag")).matches("\"[0-9a-f]+-[0-9a-f]+\"");
        assertThat(r.header("Last-Modified")).endsWith(" GMT");
    }

    /** Requests that must not reach anything outside the root, nor hidden files. */
    static Stream<String> refused() {
        return Stream.of("/static/../outside.txt", "/static/%2e%2e/outside.txt", "/static/%2E%2E/outside.txt",
                "/static/..%2foutside.txt", "/static/css/..%2F..%2Foutside.txt", "/static/%2e%2e%2f%2e%2e%2foutside.txt",
                "/static/..%5coutside.txt", "/static/.env", "/static/css/../.env", "/static/escape.txt",
                "/static/%00", "/static/missing.txt", "/static/css/missing/", "/cp/../logback-test.xml",
                "/cp/%2e%2e/logback-test.xml", "/cp/missing.txt");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void nothingOutsideTheRootNorHiddenIsServed(String target) {
        RawResponse r = get(target);
        assertThat(r.status()).isEqualTo(404);
        assertThat(text(r)).doesNotContain("outside the root").doesNotContain("SECRET");
    }

    @Test
    void conditionalRequestsAnswer304() {
        RawResponse first = get("/static/css/site.css");
        String etag = first.header("ETag");
        String modified = first.header("Last-Modified");
        RawResponse byTag = get("/static/css/site.css", "If-None-Match: \"other\", " + etag);
        assertThat(byTag.status()).isEqualTo(304);
        assertThat(byTag.body()).isEmpty();
        assertThat(byTag.header("ETag")).isEqualTo(etag);
        assertThat(get("/static/css/site.css", "If-None-Match: W/" + etag).status()).isEqualTo(304);
        assertThat(get("/static/css/site.css", "If-None-Match: \"other\"").status()).isEqualTo(200);
        assertThat(get("/static/css/site.css", "If-Modified-Since: " + modified).status()).isEqualTo(304);
        assertThat(get("/static/css/site.css", "If-Modified-Since: Mon, 01 Jan 1990 00:00:00 GMT").status()).isEqualTo(200);
        // If-None-Match wins over If-Modified-Since
        assertThat(get("/static/css/site.css", "If-None-Match: \"other\"", "If-Modified-Since: " + modified).status())
                .isEqualTo(200);
        assertThat(get("/static/css/site.css", "If-Modified-Since: not a date").status()).isEqualTo(200);
    }

    static Stream<Arguments> ranges() {
        return Stream.of(
                Arguments.of("bytes=0-9", 206, 0, 9),
                Arguments.of("bytes=99990-", 206, 99_990, 99_999),
                Arguments.of("bytes=-10", 206, 99_990, 99_999),
                Arguments.of("bytes=50000-50000", 206, 50_000, 50_000),
                Arguments.of("bytes=99990-200000", 206, 99_990, 99_999),
                Arguments.of("bytes=-200000", 206, 0, 99_999),
                Arguments.of("BYTES=1-2", 206, 1, 2),
                Arguments.of("bytes=100000-", 416, -1, -1),
                Arguments.of("bytes=-0", 416, -1, -1),
                Arguments.of("bytes=5-1", 200, -1, -1),
                Arguments.of("bytes=0-1,5-6", 200, -1, -1),
                Arguments.of("items=0-1", 200, -1, -1),
                Arguments.of("bytes=abc", 200, -1, -1));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("ranges")
    void byteRanges(String range, int status, long first, long last) {
        RawResponse r = get("/static/data.bin", "Range: " + range);
        assertThat(r.status()).isEqualTo(status);
        switch (status) {
            case 206 -> {
                assertThat(r.header("Content-Range")).isEqualTo("bytes " + first + "-" + last + "/100000");
                assertThat(r.body()).isEqualTo(Arrays.copyOfRange(big, (int) first, (int) last + 1));
            }
            case 416 -> assertThat(r.header("Content-Range")).isEqualTo("bytes */100000");
            default -> assertThat(r.body()).isEqualTo(big);
        }
    }

    @Test
    void ifRangeThatNoLongerHoldsGetsTheWholeFile() {
        String etag = get("/static/data.bin").header("ETag");
        assertThat(get("/static/data.bin", "Range: bytes=0-9", "If-Range: " + etag).status()).isEqualTo(206);
        assertThat(get("/static/data.bin", "Range: bytes=0-9", "If-Range: \"stale\"").status()).isEqualTo(200);
        assertThat(get("/static/data.bin", "Range: bytes=0-9", "If-Range: Tue, 14 Nov 2023 22:13:20 GMT").status())
                .isEqualTo(206);
        assertThat(get("/static/data.bin", "Range: bytes=0-9", "If-Range: Mon, 01 Jan 1990 00:00:00 GMT").status())
                .isEqualTo(200);
    }

    @Test
    void headAnswersTheHeadersWithoutTheBody() {
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults());
        feed(c, "HEAD /static/data.bin HTTP/1.1\r\nHost: t\r\n\r\n");
        List<RawResponse> all = parseAll(drainAll(c), Set.of(0));
        assertThat(all.get(0).status()).isEqualTo(200);
        assertThat(all.get(0).header("Content-Length")).isEqualTo("100000");
        assertThat(all.get(0).body()).isEmpty();
    }
}
