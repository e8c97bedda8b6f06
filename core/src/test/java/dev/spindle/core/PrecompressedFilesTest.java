// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link StaticFiles#precompressed()}: siblings compressed ahead of time, chosen by Accept-Encoding. */
class PrecompressedFilesTest {
    @TempDir
    static Path dir;
    private static Router router;
    private static final String JS = "function hello() { return 'a script long enough to be compressed'; }\n".repeat(40);

    @BeforeAll
    static void files() throws IOException {
        Path root = Files.createDirectories(dir.resolve("web"));
        Files.writeString(root.resolve("app.js"), JS);
        Files.writeString(root.resolve("app.js.gz"), "gz");
        Files.writeString(root.resolve("app.js.zst"), "zst");
        Files.writeString(root.resolve("app.js.br"), "br");
        Files.writeString(root.resolve("site.css"), "body{}".repeat(300));
        Files.writeString(root.resolve("site.css.gz"), "css-gz");
        Files.writeString(root.resolve("plain.txt"), "no siblings ".repeat(200));
        Files.writeString(dir.resolve("outside.gz"), "outside the root");
        Files.writeString(root.resolve("escape.txt"), "escape");
        Files.createSymbolicLink(root.resolve("escape.txt.gz"), dir.resolve("outside.gz"));
        router = Router.builder()
                .staticFiles("/static", StaticFiles.directory(root).precompressed())
                .staticFiles("/plain", StaticFiles.directory(root))
                .staticFiles("/zipped", StaticFiles.directory(root).precompressed(),
                        RouteOptions.defaults().compression(Compression.defaults()))
                .staticFiles("/cp", StaticFiles.classpath("precompressed-test").precompressed())
                .build();
    }

    private static RawResponse get(String target, String... headers) {
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults());
        StringBuilder req = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: t\r\n");
        for (String h : headers) {
            req.append(h).append("\r\n");
        }
        feed(c, req.append("\r\n").toString());
        List<RawResponse> all = parseAll(drainAll(c), Set.of());
        assertThat(all).hasSize(1);
        return all.get(0);
    }

    static Stream<Arguments> choices() {
        // file, Accept-Encoding, the body sent, its coding (null: the file itself)
        return Stream.of(
                Arguments.of("app.js", null, JS, null),
                Arguments.of("app.js", "gzip", "gz", "gzip"),
                Arguments.of("app.js", "x-gzip", "gz", "gzip"),
                Arguments.of("app.js", "gzip, deflate, br, zstd", "zst", "zstd"),
                Arguments.of("app.js", "gzip, br", "br", "br"),
                Arguments.of("app.js", "zstd;q=0.5, gzip", "gz", "gzip"),
                Arguments.of("app.js", "*", "zst", "zstd"),
                Arguments.of("app.js", "*, zstd;q=0, br;q=0", "gz", "gzip"),
                Arguments.of("app.js", "gzip;q=0.5, identity", JS, null),
                Arguments.of("app.js", "deflate", JS, null),
                Arguments.of("site.css", "zstd, br, gzip", "css-gz", "gzip"),
                Arguments.of("site.css", "zstd", "body{}".repeat(300), null),
                Arguments.of("plain.txt", "gzip", "no siblings ".repeat(200), null),
                Arguments.of("escape.txt", "gzip", "escape", null));
    }

    @ParameterizedTest(name = "{0}, Accept-Encoding: {1} -> {3}")
    @MethodSource("choices")
    void theSiblingTheRequestPrefersIsSent(String file, String accept, String body, String coding) {
        RawResponse r = accept == null ? get("/static/" + file) : get("/static/" + file, "Accept-Encoding: " + accept);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo(body);
        assertThat(r.header("Content-Encoding")).isEqualTo(coding);
        assertThat(r.headers("Vary")).containsExactly("Accept-Encoding");
        String type = file.endsWith(".js") ? "text/javascript; charset=utf-8" : file.endsWith(".css") ? "text/css; charset=utf-8"
                : "text/plain; charset=utf-8";
        assertThat(r.header("Content-Type")).as("the file's own type, not gzip's").isEqualTo(type);
    }

    @Test
    void eachVariantHasItsOwnValidatorAndIsRevalidatedByIt() {
        String identity = get("/static/app.js").header("ETag");
        String gz = get("/static/app.js", "Accept-Encoding: gzip").header("ETag");
        String zst = get("/static/app.js", "Accept-Encoding: zstd").header("ETag");
        assertThat(List.of(identity, gz, zst)).doesNotHaveDuplicates().allMatch(e -> e.startsWith("\""));
        RawResponse notModified = get("/static/app.js", "Accept-Encoding: gzip", "If-None-Match: " + gz);
        assertThat(notModified.status()).isEqualTo(304);
        assertThat(notModified.header("ETag")).isEqualTo(gz);
        assertThat(get("/static/app.js", "Accept-Encoding: zstd", "If-None-Match: " + gz).status())
                .as("another variant's validator does not match").isEqualTo(200);
    }

    @Test
    void aRangeIsOfTheFileItself() {
        RawResponse r = get("/static/app.js", "Accept-Encoding: gzip", "Range: bytes=0-7");
        assertThat(r.status()).isEqualTo(206);
        assertThat(r.bodyText()).isEqualTo(JS.substring(0, 8));
        assertThat(r.header("Content-Encoding")).isNull();
        assertThat(r.headers("Vary")).containsExactly("Accept-Encoding");
    }

    @Test
    void withoutPrecompressedTheSiblingsAreJustFiles() {
        RawResponse r = get("/plain/app.js", "Accept-Encoding: gzip");
        assertThat(r.bodyText()).isEqualTo(JS);
        assertThat(r.header("Content-Encoding")).isNull();
        assertThat(r.headers("Vary")).isEmpty();
    }

    @Test
    void aRouteThatCompressesCompressesFilesWithoutASibling() throws IOException {
        RawResponse sibling = get("/zipped/app.js", "Accept-Encoding: gzip");
        assertThat(sibling.bodyText()).as("the sibling, not compressed again").isEqualTo("gz");
        assertThat(sibling.headers("Vary")).containsExactly("Accept-Encoding");
        RawResponse onTheFly = get("/zipped/plain.txt", "Accept-Encoding: gzip");
        assertThat(onTheFly.header("Content-Encoding")).isEqualTo("gzip");
        assertThat(onTheFly.headers("Vary")).containsExactly("Accept-Encoding");
        assertThat(onTheFly.header("ETag")).startsWith("W/\"");
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(onTheFly.body()))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("no siblings ".repeat(200));
        }
    }

    @Test
    void classpathResourcesHaveSiblingsToo() {
        assertThat(get("/cp/app.js", "Accept-Encoding: gzip").bodyText()).isEqualTo("gzip-bytes-of-app.js");
        assertThat(get("/cp/app.js", "Accept-Encoding: gzip").header("Content-Encoding")).isEqualTo("gzip");
        assertThat(get("/cp/app.js").bodyText()).isEqualTo("console.log(\"identity\");\n");
    }
}
