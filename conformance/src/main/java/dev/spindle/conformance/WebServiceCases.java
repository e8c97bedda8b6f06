// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.h2.Header;
import dev.spindle.core.Cookie;
import dev.spindle.core.Cors;
import dev.spindle.core.Form;
import dev.spindle.core.Handler;
import dev.spindle.core.Router;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a web service leans on besides routing, over HTTP/1.1 and HTTP/2, against a server of the
 * suite's strategy: the {@link Cors} filter (preflights allowed and refused by origin, pattern,
 * method and header; simple requests from allowed, refused and no origins; its headers on error
 * answers too; credentials never with {@code *}), typed path, query and form parameters (each
 * conversion failure a 400 naming the parameter and the type), and cookies ({@code Cookie} read,
 * HTTP/2's split {@code cookie} fields joined, one {@code Set-Cookie} field per cookie, a value
 * that would inject a field refused). Run by {@link HttpConformanceSuite} against every server;
 * tagged, to run alone ({@code -Dgroups=web-service}).
 */
@org.junit.jupiter.api.Tag("web-service")
public abstract class WebServiceCases extends SuiteSection {
    static final String APP = "https://app.example.com";
    static final String EVIL = "https://evil.example.net";

    enum Sort { ASC, DESC }

    /** A type the router converts with a converter of its own: an amount in cents from {@code 12.50}. */
    record Cents(long value) {
        static Cents parse(String text) {
            int dot = text.indexOf('.');
            if (dot < 0 || text.length() - dot != 3) {
                throw new IllegalArgumentException("two decimals expected");
            }
            return new Cents(Long.parseLong(text.substring(0, dot)) * 100 + Integer.parseInt(text.substring(dot + 1)));
        }
    }

    /** The cases, run against the server of {@code suite}, the suite that runs them. */
    protected WebServiceCases(SuiteTarget suite) {
        super(suite);
    }

    @Override
    protected Router router() {
        Cors cors = Cors.builder()
                .allowOrigin(APP)
                .allowOriginPattern("https://*.example.org")
                .allowMethods("GET", "POST", "DELETE")
                .allowHeaders("Content-Type", "X-Token")
                .exposeHeaders("X-Total")
                .allowCredentials()
                .maxAge(Duration.ofMinutes(10))
                .build();
        return Router.builder()
                .filter(cors)
                .converter(Cents.class, Cents::parse)
                .get("/notes", (req, res) -> res.header("X-Total", "2").text("two notes"))
                .delete("/notes/{id}", (req, res) -> res.status(204))
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("a handler failed");
                })
                .get("/items/{id}", (req, res) -> res.text(req.pathParam("id", long.class) + " "
                        + req.queryParam("limit", int.class, 10) + " " + req.queryParam("sort", Sort.class)))
                .get("/owners/{owner}", (req, res) -> res.text(req.pathParam("owner", UUID.class).toString()))
                .get("/since", (req, res) -> res.text(req.queryParam("t", Instant.class).toString()))
                .get("/price", (req, res) -> res.text(Long.toString(req.queryParam("p", Cents.class).value())))
                .post("/order", Handler.blocking((req, res) -> {
                    Form form = req.form();
                    res.text(form.value("qty", int.class) + " " + form.value("gift", boolean.class, false));
                }))
                .get("/session", (req, res) -> res.text(req.cookie("sid") + " " + req.cookies()))
                .get("/login", (req, res) -> res
                        .cookie(Cookie.of("sid", "abc123").path("/").maxAge(Duration.ofHours(1)).secure().httpOnly()
                                .sameSite(Cookie.SameSite.STRICT))
                        .cookie(Cookie.of("theme", "dark"))
                        .text("signed in"))
                .get("/remember", (req, res) -> res.cookie(Cookie.of("v", req.queryParam("v"))).text("remembered"))
                .build();
    }

    private Answer fetch(boolean h2, String method, String path, Header... fields) throws IOException {
        return fetch(h2, method, path, null, fields);
    }

    private Answer fetch(boolean h2, String method, String path, byte[] body, Header... fields) throws IOException {
        if (h2) {
            Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
        }
        return Answer.fetch(suite, server().port(), h2, method, path, body, fields);
    }

    private static Header origin(String origin) {
        return new Header("origin", origin);
    }

    /** Rows for both protocols: each row of {@code rows} with h2 false, then true, in front. */
    private static Stream<Arguments> bothProtocols(Object[]... rows) {
        List<Arguments> all = new ArrayList<>();
        for (boolean h2 : new boolean[] {false, true}) {
            for (Object[] row : rows) {
                Object[] args = new Object[row.length + 1];
                args[0] = h2;
                System.arraycopy(row, 0, args, 1, row.length);
                all.add(Arguments.of(args));
            }
        }
        return all.stream();
    }

    static Stream<Arguments> preflights() {
        // origin, the method and headers asked for, the status, the Access-Control-Allow-Origin answered (null: none)
        return bothProtocols(
                new Object[] {APP, "POST", "content-type, x-token", 204, APP},
                new Object[] {APP, "DELETE", null, 204, APP},
                new Object[] {"https://eu.example.org", "GET", "X-Token", 204, "https://eu.example.org"},
                new Object[] {"https://a.b.example.org", "GET", null, 204, "https://a.b.example.org"},
                new Object[] {EVIL, "POST", null, 403, null},
                new Object[] {"https://example.org", "GET", null, 403, null},
                new Object[] {"https://evil.net/.example.org", "GET", null, 403, null},
                new Object[] {"http://app.example.com", "GET", null, 403, null},
                new Object[] {APP, "PUT", null, 403, null},
                new Object[] {APP, "POST", "content-type, x-other", 403, null});
    }

    /** A preflight is answered by the filter: 204 with what it allows when origin, method and headers are allowed, else 403 without. */
    @ParameterizedTest(name = "h2 {0}: OPTIONS from {1} for {2} with [{3}] -> {4}")
    @MethodSource("preflights")
    void aPreflightIsAnsweredByTheFilter(boolean h2, String from, String method, String headers, int status, String allowOrigin)
            throws IOException {
        List<Header> fields = new ArrayList<>(List.of(origin(from), new Header("access-control-request-method", method)));
        if (headers != null) {
            fields.add(new Header("access-control-request-headers", headers));
        }
        Answer a = fetch(h2, "OPTIONS", "/notes", fields.toArray(Header[]::new));
        assertThat(a.status()).isEqualTo(status);
        assertThat(a.header("Access-Control-Allow-Origin")).isEqualTo(allowOrigin);
        assertThat(a.all("Vary")).as("the answer depends on the origin").contains("Origin");
        if (status == 204) {
            assertThat(a.header("Access-Control-Allow-Credentials")).isEqualTo("true");
            assertThat(a.header("Access-Control-Allow-Methods")).isEqualTo("GET, POST, DELETE");
            assertThat(a.header("Access-Control-Max-Age")).isEqualTo("600");
            assertThat(a.header("Access-Control-Allow-Headers")).isEqualTo(headers == null ? null : "Content-Type, X-Token");
            assertThat(a.body()).isEmpty();
        } else {
            assertThat(a.text()).contains("CORS preflight refused");
            assertThat(a.header("Access-Control-Allow-Methods")).isNull();
        }
    }

    static Stream<Arguments> simpleRequests() {
        // path, origin (null: none), status, whether the CORS headers are there
        return bothProtocols(
                new Object[] {"/notes", APP, 200, true},
                new Object[] {"/notes", "https://eu.example.org", 200, true},
                new Object[] {"/notes", EVIL, 200, false},
                new Object[] {"/notes", null, 200, false},
                new Object[] {"/missing", APP, 404, true},
                new Object[] {"/boom", APP, 500, true},
                new Object[] {"/items/x?sort=asc", APP, 400, true},
                new Object[] {"/missing", EVIL, 404, false});
    }

    /** Any other request is served; from an allowed origin its answer, errors included, carries the origin and credentials (never {@code *}). */
    @ParameterizedTest(name = "h2 {0}: GET {1} from {2} -> {3}, CORS headers {4}")
    @MethodSource("simpleRequests")
    void aRequestFromAnAllowedOriginGetsTheCorsHeadersOnAnyAnswer(boolean h2, String path, String from, int status, boolean allowed)
            throws IOException {
        Answer a = from == null ? fetch(h2, "GET", path) : fetch(h2, "GET", path, origin(from));
        assertThat(a.status()).isEqualTo(status);
        assertThat(a.header("Access-Control-Allow-Origin")).isEqualTo(allowed ? from : null);
        assertThat(a.header("Access-Control-Allow-Credentials")).isEqualTo(allowed ? "true" : null);
        assertThat(a.header("Access-Control-Expose-Headers")).isEqualTo(allowed ? "X-Total" : null);
        assertThat(a.all("Vary")).contains("Origin");
        if (status == 200) {
            assertThat(a.text()).isEqualTo("two notes");
        }
    }

    static Stream<Arguments> typedParameters() {
        // target, status, what the body holds: the values read, or what the 400 says
        return bothProtocols(
                new Object[] {"/items/42?sort=desc", 200, "42 10 DESC"},
                new Object[] {"/items/-7?limit=5&sort=Asc", 200, "-7 5 ASC"},
                new Object[] {"/items/9223372036854775807?sort=asc", 200, "9223372036854775807 10 ASC"},
                new Object[] {"/items/42", 400, "query parameter 'sort' is required"},
                new Object[] {"/items/abc?sort=asc", 400, "path parameter 'id' must be an integer (long), got \"abc\""},
                new Object[] {"/items/9223372036854775808?sort=asc", 400, "path parameter 'id' must be an integer (long)"},
                new Object[] {"/items/1?limit=ten&sort=asc", 400, "query parameter 'limit' must be an integer (int), got \"ten\""},
                new Object[] {"/items/1?sort=sideways", 400, "query parameter 'sort' must be one of asc, desc, got \"sideways\""},
                new Object[] {"/owners/123e4567-e89b-12d3-a456-426614174000", 200, "123e4567-e89b-12d3-a456-426614174000"},
                new Object[] {"/owners/123e4567", 400, "path parameter 'owner' must be a UUID"},
                new Object[] {"/since?t=2026-12-02T10:15:30Z", 200, "2026-12-02T10:15:30Z"},
                new Object[] {"/since?t=2026-12-02%2010:15", 400, "query parameter 't' must be an ISO-8601 instant"},
                new Object[] {"/price?p=12.50", 200, "1250"},
                new Object[] {"/price?p=12.5", 400, "query parameter 'p' must be a Cents, got \"12.5\""});
    }

    /** Path and query parameters read as types; a value that is not one is a 400 that names the parameter and the type. */
    @ParameterizedTest(name = "h2 {0}: GET {1} -> {2}")
    @MethodSource("typedParameters")
    void parametersAreReadAsTypes(boolean h2, String target, int status, String said) throws IOException {
        Answer a = fetch(h2, "GET", target);
        assertThat(a.status()).isEqualTo(status);
        if (status == 200) {
            assertThat(a.text()).isEqualTo(said);
        } else {
            assertThat(a.text()).startsWith("400 Bad Request").contains(said);
        }
    }

    static Stream<Arguments> forms() {
        return bothProtocols(
                new Object[] {"qty=3&gift=true", 200, "3 true"},
                new Object[] {"qty=%33", 200, "3 false"},
                new Object[] {"gift=true", 400, "form field 'qty' is required"},
                new Object[] {"qty=3&gift=maybe", 400, "form field 'gift' must be true or false, got \"maybe\""},
                new Object[] {"qty=%zz", 400, ""});
    }

    /** Form fields read as types from a blocking handler, failures as 400s naming the field. */
    @ParameterizedTest(name = "h2 {0}: POST /order {1} -> {2}")
    @MethodSource("forms")
    void formFieldsAreReadAsTypes(boolean h2, String form, int status, String said) throws IOException {
        Answer a = fetch(h2, "POST", "/order", form.getBytes(StandardCharsets.US_ASCII),
                new Header("content-type", "application/x-www-form-urlencoded"));
        assertThat(a.status()).isEqualTo(status);
        assertThat(a.text()).contains(said);
    }

    static Stream<Arguments> cookies() {
        // the cookie fields sent (several: separate fields, as HTTP/2 may split them), what the handler read
        return bothProtocols(
                new Object[] {List.of("sid=abc123"), "abc123 {sid=abc123}"},
                new Object[] {List.of("theme=dark; sid=abc123"), "abc123 {theme=dark, sid=abc123}"},
                new Object[] {List.of("theme=dark", "sid=\"quoted\""), "quoted {theme=dark, sid=quoted}"},
                new Object[] {List.of("sid=first; sid=second"), "first {sid=first}"},
                new Object[] {List.of("theme=dark"), "null {theme=dark}"},
                new Object[] {List.of(), "null {}"});
    }

    /** RFC 6265 5.4 and RFC 9113 8.2.3: the cookies of every cookie field, in order. */
    @ParameterizedTest(name = "h2 {0}: Cookie {1}")
    @MethodSource("cookies")
    void cookiesAreReadFromEveryCookieField(boolean h2, List<String> fields, String read) throws IOException {
        Answer a = fetch(h2, "GET", "/session", fields.stream().map(v -> new Header("cookie", v)).toArray(Header[]::new));
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.text()).isEqualTo(read);
    }

    static Stream<Arguments> protocols() {
        return bothProtocols(new Object[0]);
    }

    /** Each cookie set is its own Set-Cookie field (a comma joins nothing here), attributes in order. */
    @ParameterizedTest(name = "h2 {0}")
    @MethodSource("protocols")
    void eachCookieSetIsItsOwnField(boolean h2) throws IOException {
        Answer a = fetch(h2, "GET", "/login");
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.all("Set-Cookie")).containsExactly(
                "sid=abc123; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Strict", "theme=dark");
    }

    static Stream<Arguments> cookieValues() {
        return bothProtocols(
                new Object[] {"blue", 200},
                new Object[] {"a%3Bb", 500},
                new Object[] {"a%0D%0AX-Injected:%20yes", 500},
                new Object[] {"two%20words", 500});
    }

    /** A value that would end the cookie or inject a field is refused before anything is sent: the handler fails, 500, no Set-Cookie. */
    @ParameterizedTest(name = "h2 {0}: Set-Cookie v={1} -> {2}")
    @MethodSource("cookieValues")
    void aCookieValueThatWouldInjectIsRefused(boolean h2, String value, int status) throws IOException {
        Answer a = fetch(h2, "GET", "/remember?v=" + value);
        assertThat(a.status()).isEqualTo(status);
        assertThat(a.header("X-Injected")).isNull();
        assertThat(a.all("Set-Cookie")).isEqualTo(status == 200 ? List.of("v=" + value) : List.of());
    }
}
