// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.RawResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

/** The JSON codec seam: bodies read into types, values written, failures answered. */
class JsonCodecTest {
    record Point(int x, int y) {
    }

    /** Stands in for a JSON library: reads and writes {@code {"x":1,"y":2}} for {@link Point} only. */
    static final class PointCodec implements JsonCodec {
        @Override
        public byte[] write(Object value) {
            Point p = (Point) value;
            return ("{\"x\":" + p.x() + ",\"y\":" + p.y() + "}").getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public <T> T read(byte[] json, int offset, int length, Class<T> type) throws Exception {
            String s = new String(json, offset, length, StandardCharsets.UTF_8);
            if (type != Point.class || !s.matches("\\{\"x\":-?\\d+,\"y\":-?\\d+}")) {
                throw new java.io.IOException("expected {\"x\":int,\"y\":int}, got " + s);
            }
            String[] parts = s.replaceAll("[{}\"xy:]", "").split(",");
            return type.cast(new Point(Integer.parseInt(parts[0]), Integer.parseInt(parts[1])));
        }
    }

    private static String post(String target, String body) {
        return "POST " + target + " HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length
                + "\r\n\r\n" + body;
    }

    private static List<RawResponse> exchange(Router router, String requests, int expected) {
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults());
        feed(c, requests);
        List<RawResponse> all = parseAll(drainAll(c));
        assertThat(all).hasSize(expected);
        return all;
    }

    @Test
    void bodiesAreReadIntoTypesAndValuesWrittenAsJson() {
        Router router = Router.builder().json(new PointCodec())
                .post("/mirror", (req, res) -> {
                    Point p = req.bodyAs(Point.class);
                    res.status(201).json(new Point(p.y(), p.x()));
                })
                .build();
        List<RawResponse> rs = exchange(router, post("/mirror", "{\"x\":1,\"y\":-2}") + post("/mirror", "{\"x\":oops}"), 2);
        assertThat(rs.get(0).status()).isEqualTo(201);
        assertThat(rs.get(0).header("Content-Type")).startsWith("application/json");
        assertThat(new String(rs.get(0).body(), StandardCharsets.UTF_8)).isEqualTo("{\"x\":-2,\"y\":1}");
        assertThat(rs.get(1).status()).isEqualTo(400);
        // the codec's message (here with the body's text) stays in the exception's cause, out of the answer
        assertThat(new String(rs.get(1).body(), StandardCharsets.UTF_8)).isEqualTo("400 Bad Request: the body is not a valid Point\n");
    }

    @Test
    void exceptionMappersCanAnswerInJson() {
        Router router = Router.builder().json(new PointCodec())
                .exception(HttpException.class, (e, req, res) -> res.status(e.status()).json(new Point(e.status(), 0)))
                .build();
        RawResponse r = exchange(router, "GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n", 1).get(0);
        assertThat(r.status()).isEqualTo(404);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("{\"x\":404,\"y\":0}");
    }

    @Test
    void withoutACodecTheHandlerFailsClearly() {
        Router router = Router.builder().post("/p", (req, res) -> res.json(req.bodyAs(Point.class))).build();
        RawResponse r = exchange(router, post("/p", "{\"x\":1,\"y\":2}"), 1).get(0);
        assertThat(r.status()).isEqualTo(500);
    }

    /** A codec that writes strings as JSON strings (enough of one for the cases below). */
    static final class StringCodec implements JsonCodec {
        @Override
        public byte[] write(Object value) {
            return Json.quote((String) value).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public <T> T read(byte[] json, int offset, int length, Class<T> type) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void aStringIsAValueForJsonAndTextForJsonText() {
        String name = "{\"not\": json}";
        Router router = Router.builder().json(new StringCodec())
                .get("/value", (req, res) -> res.json(name))
                .get("/text", (req, res) -> res.jsonText("{\"a\":1}"))
                .build();
        List<RawResponse> rs = exchange(router, "GET /value HTTP/1.1\r\nHost: t\r\n\r\nGET /text HTTP/1.1\r\nHost: t\r\n\r\n", 2);
        assertThat(new String(rs.get(0).body(), StandardCharsets.UTF_8)).isEqualTo("\"{\\\"not\\\": json}\"");
        assertThat(new String(rs.get(1).body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        assertThat(rs).allMatch(r -> r.header("Content-Type").equals(Response.APPLICATION_JSON));
    }

    @Test
    void aStringWithoutACodecPointsToJsonText() {
        Router router = Router.builder()
                .get("/p", (req, res) -> {
                    try {
                        res.json("{}");
                    } catch (IllegalStateException e) {
                        res.status(500).text(e.getMessage());
                    }
                })
                .build();
        RawResponse r = exchange(router, "GET /p HTTP/1.1\r\nHost: t\r\n\r\n", 1).get(0);
        assertThat(r.status()).isEqualTo(500);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("send JSON text as it is with jsonText(String)");
    }
}
