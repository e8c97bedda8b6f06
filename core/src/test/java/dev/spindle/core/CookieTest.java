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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CookieTest {
    /** The Cookie fields of a request, and the cookies read from them. */
    static Stream<Arguments> requestCookies() {
        return Stream.of(
                Arguments.of(List.of("a=1"), Map.of("a", "1")),
                Arguments.of(List.of("a=1; b=2"), Map.of("a", "1", "b", "2")),
                Arguments.of(List.of("a=1;b=2 ;  c = 3"), Map.of("a", "1", "b", "2", "c", "3")),
                Arguments.of(List.of("a=\"quoted\""), Map.of("a", "quoted")),
                Arguments.of(List.of("a="), Map.of("a", "")),
                Arguments.of(List.of("a=1=2"), Map.of("a", "1=2")),
                Arguments.of(List.of("a=1; a=2"), Map.of("a", "1")),
                Arguments.of(List.of("novalue; b=2"), Map.of("b", "2")),
                Arguments.of(List.of("a=1", "b=2"), Map.of("a", "1", "b", "2")),
                Arguments.of(List.of(), Map.of()));
    }

    @ParameterizedTest
    @MethodSource("requestCookies")
    void cookiesAreReadFromEveryCookieField(List<String> fields, Map<String, String> expected) throws Exception {
        AtomicReference<Map<String, String>> all = new AtomicReference<>();
        AtomicReference<String> first = new AtomicReference<>();
        Router router = Router.builder().get("/", (req, res) -> {
            all.set(req.cookies());
            first.set(req.cookie("a"));
            res.text("ok");
        }).build();
        StringBuilder request = new StringBuilder("GET / HTTP/1.1\r\nHost: t\r\n");
        fields.forEach(f -> request.append("Cookie: ").append(f).append("\r\n"));
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults());
        feed(c, request.append("\r\n").toString());
        assertThat(parseAll(drainAll(c))).hasSize(1);
        assertThat(all.get()).containsExactlyInAnyOrderEntriesOf(expected);
        assertThat(first.get()).isEqualTo(expected.get("a"));
    }

    static Stream<Arguments> setCookies() {
        return Stream.of(
                Arguments.of(Cookie.of("id", "abc"), "id=abc"),
                Arguments.of(Cookie.of("id", "\"a b\"".replace(" ", "")), "id=\"ab\""),
                Arguments.of(Cookie.of("s", "x").path("/").domain("example.com").secure().httpOnly().sameSite(Cookie.SameSite.LAX)
                        .maxAge(Duration.ofHours(1)), "s=x; Max-Age=3600; Path=/; Domain=example.com; Secure; HttpOnly; SameSite=Lax"),
                Arguments.of(Cookie.of("s", "x").expires(Instant.parse("2015-10-21T07:28:00Z")), "s=x; Expires=Wed, 21 Oct 2015 07:28:00 GMT"),
                Arguments.of(Cookie.of("s", "x").sameSite(Cookie.SameSite.NONE).secure(), "s=x; Secure; SameSite=None"),
                Arguments.of(Cookie.delete("s").path("/"), "s=; Max-Age=0; Path=/"),
                Arguments.of(Cookie.of("s", "x").maxAge(Duration.ofSeconds(-5)), "s=x; Max-Age=0"));
    }

    @ParameterizedTest
    @MethodSource("setCookies")
    void setCookieFields(Cookie cookie, String field) throws Exception {
        assertThat(cookie.fieldValue()).isEqualTo(field);
        Router router = Router.builder().get("/", (req, res) -> res.cookie(cookie).cookie(Cookie.of("other", "1")).text("ok")).build();
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults());
        feed(c, "GET / HTTP/1.1\r\nHost: t\r\n\r\n");
        RawResponse r = parseAll(drainAll(c)).get(0);
        assertThat(r.headers("Set-Cookie")).containsExactly(field, "other=1");
    }

    /** What would inject a header or an attribute is refused. */
    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("name with a space", (Runnable) () -> Cookie.of("a b", "1")),
                Arguments.of("empty name", (Runnable) () -> Cookie.of("", "1")),
                Arguments.of("name with =", (Runnable) () -> Cookie.of("a=b", "1")),
                Arguments.of("value with ;", (Runnable) () -> Cookie.of("a", "1; Domain=evil.test")),
                Arguments.of("value with CRLF", (Runnable) () -> Cookie.of("a", "1\r\nSet-Cookie: x=y")),
                Arguments.of("value with a space", (Runnable) () -> Cookie.of("a", "1 2")),
                Arguments.of("value with a comma", (Runnable) () -> Cookie.of("a", "1,2")),
                Arguments.of("value with a backslash", (Runnable) () -> Cookie.of("a", "1\\2")),
                Arguments.of("non-ASCII value", (Runnable) () -> Cookie.of("a", "é")),
                Arguments.of("path with ;", (Runnable) () -> Cookie.of("a", "1").path("/; HttpOnly")),
                Arguments.of("domain with LF", (Runnable) () -> Cookie.of("a", "1").domain("a\n.test")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void valuesThatWouldInjectAreRefused(String name, Runnable make) {
        assertThatThrownBy(make::run).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sameSiteNoneNeedsSecure() {
        assertThatThrownBy(() -> Cookie.of("a", "1").sameSite(Cookie.SameSite.NONE).fieldValue())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Secure");
    }
}
