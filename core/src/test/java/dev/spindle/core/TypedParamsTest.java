// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.RawResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TypedParamsTest {
    enum Color { RED, GREEN }

    record Money(long cents) {
    }

    private static final Router ROUTER = Router.builder()
            .converter(Money.class, text -> new Money(Math.round(Double.parseDouble(text) * 100)))
            .get("/int/{v}", (req, res) -> res.text("int " + (req.pathParam("v", int.class) + 1)))
            .get("/long/{v}", (req, res) -> res.text("long " + req.pathParam("v", long.class)))
            .get("/double/{v}", (req, res) -> res.text("double " + req.pathParam("v", double.class)))
            .get("/bool/{v}", (req, res) -> res.text("bool " + req.pathParam("v", boolean.class)))
            .get("/uuid/{v}", (req, res) -> res.text("uuid " + req.pathParam("v", UUID.class)))
            .get("/color/{v}", (req, res) -> res.text("color " + req.pathParam("v", Color.class)))
            .get("/instant/{v}", (req, res) -> res.text("instant " + req.pathParam("v", Instant.class).getEpochSecond()))
            .get("/date/{v}", (req, res) -> res.text("date " + req.pathParam("v", LocalDate.class).getDayOfYear()))
            .get("/money/{v}", (req, res) -> res.text("money " + req.pathParam("v", Money.class).cents()))
            .get("/page", (req, res) -> res.text("page " + req.queryParam("n", int.class, 1) + " of " + req.queryParam("size", int.class)))
            .build();

    /** A request, and the status and body it gets. */
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("/int/41", 200, "int 42"),
                Arguments.of("/int/-7", 200, "int -6"),
                Arguments.of("/int/abc", 400, "path parameter 'v' must be an integer (int), got \"abc\""),
                Arguments.of("/int/2147483648", 400, "path parameter 'v' must be an integer (int), got \"2147483648\""),
                Arguments.of("/long/2147483648", 200, "long 2147483648"),
                Arguments.of("/double/2.5", 200, "double 2.5"),
                Arguments.of("/double/NaN", 400, "path parameter 'v' must be a number, got \"NaN\""),
                Arguments.of("/bool/TRUE", 200, "bool true"),
                Arguments.of("/bool/yes", 400, "path parameter 'v' must be true or false, got \"yes\""),
                Arguments.of("/uuid/123e4567-e89b-12d3-a456-426614174000", 200, "uuid 123e4567-e89b-12d3-a456-426614174000"),
                Arguments.of("/uuid/1-1-1-1-1", 400, "path parameter 'v' must be a UUID, got \"1-1-1-1-1\""),
                Arguments.of("/color/green", 200, "color GREEN"),
                Arguments.of("/color/blue", 400, "path parameter 'v' must be one of red, green, got \"blue\""),
                Arguments.of("/instant/1970-01-01T00:01:00Z", 200, "instant 60"),
                Arguments.of("/instant/yesterday", 400,
                        "path parameter 'v' must be an ISO-8601 instant such as 2026-01-31T12:00:00Z, got \"yesterday\""),
                Arguments.of("/date/2026-02-01", 200, "date 32"),
                Arguments.of("/date/2026-02-30", 400, "path parameter 'v' must be an ISO-8601 date such as 2026-01-31, got \"2026-02-30\""),
                Arguments.of("/money/12.34", 200, "money 1234"),
                Arguments.of("/money/lots", 400, "path parameter 'v' must be a Money, got \"lots\""),
                Arguments.of("/page?size=20", 200, "page 1 of 20"),
                Arguments.of("/page?n=3&size=20", 200, "page 3 of 20"),
                Arguments.of("/page?n=3", 400, "query parameter 'size' is required"),
                Arguments.of("/page?n=x&size=1", 400, "query parameter 'n' must be an integer (int), got \"x\""),
                Arguments.of("/int/" + "9".repeat(100), 400, "path parameter 'v' must be an integer (int), got \"" + "9".repeat(64) + "...\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void typedParameters(String target, int status, String body) throws Exception {
        HttpConnection c = new HttpConnection(ROUTER, ServerConfig.defaults());
        feed(c, "GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n");
        RawResponse r = parseAll(drainAll(c)).get(0);
        assertThat(r.status()).isEqualTo(status);
        String text = new String(r.body(), StandardCharsets.UTF_8);
        assertThat(text).isEqualTo(status == 200 ? body : "400 Bad Request: " + body + "\n");
    }
}
