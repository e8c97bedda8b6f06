// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.Route;
import dev.spindle.core.http1.InputBuffer;
import dev.spindle.core.http1.RequestParser;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Routing, path variables and query parameters, on requests parsed by the real parser.
 */
class RouterTest {
    private static final Handler NOOP = (req, res) -> res.text("ok");

    private static final Router ROUTER = Router.builder()
            .get("/", NOOP)
            .get("/plaintext", NOOP)
            .get("/users/{id}", NOOP)
            .get("/users/{id}/posts/{post}", NOOP)
            .post("/users", NOOP)
            .put("/users/{id}", NOOP)
            .delete("/users/{id}", NOOP)
            .route("PATCH", "/items/{id}", NOOP)
            .route("BREW", "/pot", NOOP)
            .get("/static/index.html", NOOP)
            .get("/search", NOOP)
            .build();

    /** Parses one request with the real parser; the request points into a private buffer. */
    static Request parse(String method, String target) {
        byte[] raw = (method + " " + target + " HTTP/1.1\r\nHost: h\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        InputBuffer in = new InputBuffer(256);
        in.append(ByteBuffer.wrap(raw));
        RequestState req = new RequestState();
        RequestParser parser = new RequestParser(ServerConfig.defaults());
        assertThat(parser.parseBuffered(in, req)).as("parsing %s %s", method, target).isEqualTo(RequestParser.COMPLETE);
        return req.api;
    }

    /** "METHOD pattern" of the matched route, "404", or "405 Allow: ...". */
    static String outcome(Router router, Request req) {
        try {
            Route r = router.route(req.state);
            assertThat(req.state.route).isSameAs(r);
            return r.method + " " + r.pattern;
        } catch (Router.MethodNotAllowed e) {
            assertThat(e.status()).isEqualTo(405);
            return "405 Allow: " + e.allow;
        } catch (HttpException e) {
            return String.valueOf(e.status());
        }
    }


    static Stream<Arguments> routingCases() {
        return Stream.of(
                Arguments.of("GET", "/", "GET /"),
                Arguments.of("GET", "/plaintext", "GET /plaintext"),
                Arguments.of("GET", "/plaintext?x=1", "GET /plaintext"),
                Arguments.of("GET", "/plaintext/", "404"),
                Arguments.of("GET", "//plaintext", "404"),
                Arguments.of("GET", "/PLAINTEXT", "404"),
                Arguments.of("GET", "/plain", "404"),
                Arguments.of("GET", "/plaintextx", "404"),
                Arguments.of("GET", "/nope", "404"),
                Arguments.of("GET", "/static/index.html", "GET /static/index.html"),
                Arguments.of("GET", "/static", "404"),
                Arguments.of("GET", "/users/42", "GET /users/{id}"),
                Arguments.of("GET", "/users/42/", "404"),
                Arguments.of("GET", "/users/", "404"),
                Arguments.of("GET", "/users/42/posts/7", "GET /users/{id}/posts/{post}"),
                Arguments.of("GET", "/users/42/posts", "404"),
                Arguments.of("GET", "/users/42/posts/7/x", "404"),
                Arguments.of("GET", "/users", "405 Allow: POST"),
                Arguments.of("POST", "/users", "POST /users"),
                Arguments.of("POST", "/users/42", "405 Allow: GET, HEAD, PUT, DELETE"),
                Arguments.of("PUT", "/users/42", "PUT /users/{id}"),
                Arguments.of("DELETE", "/users/42", "DELETE /users/{id}"),
                Arguments.of("OPTIONS", "/users/42", "405 Allow: GET, HEAD, PUT, DELETE"),
                Arguments.of("HEAD", "/users/42", "GET /users/{id}"),
                Arguments.of("HEAD", "/", "GET /"),
                Arguments.of("HEAD", "/users", "405 Allow: POST"),
                Arguments.of("HEAD", "/nope", "404"),
                Arguments.of("POST", "/plaintext", "405 Allow: GET, HEAD"),
                Arguments.of("PATCH", "/items/1", "PATCH /items/{id}"),
                Arguments.of("GET", "/items/1", "405 Allow: PATCH"),
                Arguments.of("BREW", "/pot", "BREW /pot"),
                Arguments.of("BREWS", "/pot", "405 Allow: BREW"),
                Arguments.of("GET", "/pot", "405 Allow: BREW"),
                Arguments.of("GET", "http://example.com/plaintext", "GET /plaintext"),
                Arguments.of("GET", "http://example.com/users/9?x=y", "GET /users/{id}"),
                // RFC 9110 4.2.3: an empty path is equivalent to "/". Request.path() says "/", but the
                // router matches the raw (empty) path offsets, so "/" does not match.
                Arguments.of("GET", "http://example.com", "GET /"),
                Arguments.of("GET", "http://example.com?x=1", "GET /"),
                Arguments.of("OPTIONS", "*", "404"));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("routingCases")
    void routing(String method, String target, String expected) {
        Request req = parse(method.replace("", ""), target);
        assertThat(outcome(ROUTER, req)).isEqualTo(expected);
    }

    @Test
    void firstMatchingRouteWins() {
        Router r = Router.builder()
                .get("/users/me", NOOP)
                .get("/users/{id}", NOOP)
                .get("/{any}/x", NOOP)
                .build();
        assertThat(outcome(r, parse("GET", "/users/me"))).isEqualTo("GET /users/me");
        assertThat(outcome(r, parse("GET", "/users/you"))).isEqualTo("GET /users/{id}");
        assertThat(outcome(r, parse("GET", "/users/x"))).isEqualTo("GET /users/{id}");
        assertThat(outcome(r, parse("GET", "/a/x"))).isEqualTo("GET /{any}/x");
    }

    @Test
    void allowListsEveryMethodOncePerMatchingRouteInOrder() {
        Router r = Router.builder()
                .post("/things/{id}", NOOP)
                .get("/things/{id}", NOOP)
                .get("/things/special", NOOP)
                .route("POST", "/things/special", NOOP)
                .build();
        assertThat(outcome(r, parse("DELETE", "/things/special"))).isEqualTo("405 Allow: POST, GET, HEAD");
    }


    static Stream<Arguments> pathParamCases() {
        return Stream.of(
                Arguments.of("/users/42", "id", "42"),
                Arguments.of("/users/a%20b", "id", "a b"),
                Arguments.of("/users/a+b", "id", "a+b"),
                Arguments.of("/users/%E2%82%AC", "id", "\u20ac"),
                Arguments.of("/users/%e2%82%ac", "id", "\u20ac"),
                Arguments.of("/users/a%2Fb", "id", "a/b"),
                Arguments.of("/users/%41%42c", "id", "ABc"),
                Arguments.of("/users/x?id=9", "id", "x"),
                Arguments.of("/users/42", "nope", null),
                Arguments.of("/users/42/posts/7", "id", "42"),
                Arguments.of("/users/42/posts/7", "post", "7"),
                Arguments.of("http://example.com/users/a%20b", "id", "a b"));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("pathParamCases")
    void pathVariables(String target, String name, String expected) {
        Request req = parse("GET", target);
        ROUTER.route(req.state);
        assertThat(req.pathParam(name)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void malformedPercentEncodingInAPathVariableIs400(String target) {
        assertThatThrownBy(() -> parse("GET", target))
                .as("the parser rejects it before any route sees it")
                .isInstanceOf(HttpException.class)
                .extracting(e -> ((HttpException) e).status()).isEqualTo(400);
    }

    static Stream<String> malformedPercentEncodingInAPathVariableIs400() {
        return Stream.of("/users/%zz", "/users/%2", "/users/a%", "/users/%g0", "/users/%0g");
    }

    @Test
    void pathParamWithoutARouteIsNull() {
        assertThat(parse("GET", "/users/1").pathParam("id")).isNull();
    }


    static Stream<Arguments> queryParamCases() {
        return Stream.of(
                Arguments.of("/search?q=a+b%21", "q", "a b!"),
                Arguments.of("/search?x=1", "q", null),
                Arguments.of("/search", "q", null),
                Arguments.of("/search?", "q", null),
                Arguments.of("/search?q=", "q", ""),
                Arguments.of("/search?q", "q", ""),
                Arguments.of("/search?a=1&q=2", "q", "2"),
                Arguments.of("/search?a=1&q=2", "a", "1"),
                Arguments.of("/search?q=1&q=2", "q", "1"),
                Arguments.of("/search?qq=1&q=2", "q", "2"),
                Arguments.of("/search?Q=1", "q", null),
                Arguments.of("/search?%71=x", "q", "x"),
                Arguments.of("/search?q+x=1", "q x", "1"),
                Arguments.of("/search?q=%E2%82%AC", "q", "\u20ac"),
                Arguments.of("/search?q=a=b", "q", "a=b"),
                Arguments.of("/search?q=a%26b&r=1", "q", "a&b"),
                Arguments.of("/search?a=1&&q=3&", "q", "3"),
                Arguments.of("http://example.com/search?q=abs", "q", "abs"));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("queryParamCases")
    void queryParameters(String target, String name, String expected) {
        assertThat(parse("GET", target).queryParam(name)).isEqualTo(expected);
    }

    static Stream<Arguments> queryParamsCases() {
        return Stream.of(
                Arguments.of("/search?tag=a&tag=b", "tag", List.of("a", "b")),
                Arguments.of("/search?tag=a&x=1&tag=&tag", "tag", List.of("a", "", "")),
                Arguments.of("/search?tag=a+b&%74ag=c%26d", "tag", List.of("a b", "c&d")),
                Arguments.of("/search?x=1", "tag", List.of()),
                Arguments.of("/search", "tag", List.of()));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("queryParamsCases")
    void everyValueOfAQueryParameter(String target, String name, List<String> expected) {
        assertThat(parse("GET", target).queryParams(name)).isEqualTo(expected);
    }

    @Test
    void everyValueOfAHeaderInArrivalOrder() {
        byte[] raw = ("GET / HTTP/1.1\r\nHost: h\r\nAccept: a/b\r\nX-Other: 1\r\naccept: c/d, e/f\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        InputBuffer in = new InputBuffer(256);
        in.append(ByteBuffer.wrap(raw));
        RequestState state = new RequestState();
        new RequestParser(ServerConfig.defaults()).parseBuffered(in, state);
        Request req = state.api;
        assertThat(req.headers("ACCEPT")).containsExactly("a/b", "c/d, e/f");
        assertThat(req.header("accept")).isEqualTo("a/b");
        assertThat(req.headers("X-Missing")).isEmpty();
    }

    private static final Router TAILS = Router.builder()
            .get("/static/index.html", NOOP)
            .get("/static/{path...}", NOOP)
            .get("/files/{bucket}/{key...}", NOOP)
            .build();

    static Stream<Arguments> tailCases() {
        return Stream.of(
                Arguments.of("/static/index.html", "GET /static/index.html", null, null),
                Arguments.of("/static/css/site.css", "GET /static/{path...}", "path", "css/site.css"),
                Arguments.of("/static/a", "GET /static/{path...}", "path", "a"),
                Arguments.of("/static/", "GET /static/{path...}", "path", ""),
                Arguments.of("/static/a//b/", "GET /static/{path...}", "path", "a//b/"),
                Arguments.of("/static/a%20b/c%2Fd", "GET /static/{path...}", "path", "a b/c/d"),
                Arguments.of("/static/x?v=1", "GET /static/{path...}", "path", "x"),
                Arguments.of("/static", "404", null, null),
                Arguments.of("/staticx/a", "404", null, null),
                Arguments.of("/files/b1/k/e/y", "GET /files/{bucket}/{key...}", "key", "k/e/y"),
                Arguments.of("/files/b1/k/e/y", "GET /files/{bucket}/{key...}", "bucket", "b1"),
                Arguments.of("/files/b1/", "GET /files/{bucket}/{key...}", "key", ""),
                Arguments.of("/files//k", "404", null, null));
    }

    @ParameterizedTest(name = "{0} -> {1} {2}={3}")
    @MethodSource("tailCases")
    void tailVariablesTakeTheRestOfThePath(String target, String expectedRoute, String name, String value) {
        Request req = parse("GET", target);
        assertThat(outcome(TAILS, req)).isEqualTo(expectedRoute);
        if (name != null) {
            assertThat(req.pathParam(name)).isEqualTo(value);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void malformedPercentEncodingInAQueryValueIs400(String target) {
        assertThatThrownBy(() -> parse("GET", target))
                .as("the parser rejects it before any handler sees it")
                .isInstanceOf(HttpException.class)
                .extracting(e -> ((HttpException) e).status()).isEqualTo(400);
    }

    static Stream<String> malformedPercentEncodingInAQueryValueIs400() {
        return Stream.of("/search?q=%zz", "/search?q=%", "/search?q=%4", "/search?q=ab%4&x=1", "/search?q=%%41");
    }


    @ParameterizedTest(name = "\"{0}\"")
    @MethodSource
    void invalidPatternsAreRejected(String row) {
        String pattern = row.replace("", "");
        assertThatThrownBy(() -> Router.builder().get(pattern, NOOP)).isInstanceOf(IllegalArgumentException.class);
    }

    static Stream<String> invalidPatternsAreRejected() {
        return Stream.of("", "users", "users/{id}", "*", "/a{b}", "/{a}b", "/{}", "/{", "/}", "/a/{id",
                // Route takes "{a}{b}" for one variable named "a}{b" (two variables in one segment),
                // and "{a{b}" for a variable named "a{b": braces inside a variable name are not checked.
                "/x/{a}{b}",
                "/x/{a{b}",
                "/{a}/{b}/{c}/{d}/{e}/{f}/{g}/{h}/{i}",
                // a tail must be last and named
                "/{path...}/x", "/a/{...}", "/{a...}/{b...}");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @MethodSource
    void validPatternsAreAccepted(String pattern) {
        assertThat(Router.builder().get(pattern, NOOP).build()).isNotNull();
    }

    static Stream<String> validPatternsAreAccepted() {
        return Stream.of("/", "/a", "/a/b/c", "/{a}", "/{a}/{b}", "/a-b_c.d~e", "/{a}/{b}/{c}/{d}/{e}/{f}/{g}/{h}",
                "/{path...}", "/static/{path...}", "/{a}/{rest...}");
    }

    @Test
    void nullArgumentsAreRejected() {
        assertThatThrownBy(() -> Router.builder().get(null, NOOP)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Router.builder().get("/", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Router.builder().route(null, "/", NOOP)).isInstanceOf(NullPointerException.class);
    }
}
