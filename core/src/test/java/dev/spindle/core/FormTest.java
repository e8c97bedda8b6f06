// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.RawResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FormTest {
    /** A body, and the value and every value of the field {@code a}, and the names. */
    static Stream<Arguments> forms() {
        return Stream.of(
                Arguments.of("a=1&b=2", "1", List.of("1"), List.of("a", "b")),
                Arguments.of("a=1&a=2", "1", List.of("1", "2"), List.of("a")),
                Arguments.of("a=x+y%21&b", "x y!", List.of("x y!"), List.of("a", "b")),
                Arguments.of("a=&&b=", "", List.of(""), List.of("a", "b")),
                Arguments.of("a%20b=1&a=%E2%82%AC", "\u20ac", List.of("\u20ac"), List.of("a b", "a")),
                Arguments.of("", null, List.of(), List.of()),
                Arguments.of("b=2", null, List.of(), List.of("b")));
    }

    @ParameterizedTest
    @MethodSource("forms")
    void formsAreDecoded(String body, String first, List<String> all, List<String> names) {
        Form form = Form.parse(body.getBytes(StandardCharsets.US_ASCII));
        assertThat(form.value("a")).isEqualTo(first);
        assertThat(form.values("a")).containsExactlyElementsOf(all);
        assertThat(form.names()).containsExactlyElementsOf(names);
    }

    @Test
    void limitsAndBadEscapes() {
        assertThatThrownBy(() -> Form.parse("a=%zz".getBytes(StandardCharsets.US_ASCII)))
                .isInstanceOfSatisfying(HttpException.class, e -> assertThat(e.status()).isEqualTo(400));
        String many = "f=1&".repeat(Form.MAX_FIELDS) + "g=2";
        assertThatThrownBy(() -> Form.parse(many.getBytes(StandardCharsets.US_ASCII)))
                .isInstanceOfSatisfying(HttpException.class, e -> assertThat(e.status()).isEqualTo(413));
        assertThat(Form.parse("f=1&".repeat(Form.MAX_FIELDS).getBytes(StandardCharsets.US_ASCII)).values("f")).hasSize(Form.MAX_FIELDS);
    }

    /** A request, and the status and body the form route answers. */
    static Stream<Arguments> requests() {
        return Stream.of(
                Arguments.of("application/x-www-form-urlencoded", "name=Ada&age=36", 200, "Ada 36"),
                Arguments.of("application/x-www-form-urlencoded; charset=UTF-8", "name=Ada", 200, "Ada 0"),
                Arguments.of("application/x-www-form-urlencoded", "name=Ada&age=old", 400,
                        "400 Bad Request: form field 'age' must be an integer (int), got \"old\"\n"),
                Arguments.of("application/x-www-form-urlencoded", "age=3", 400, "400 Bad Request: form field 'name' is required\n"),
                Arguments.of("application/json", "{}", 415,
                        "415 Unsupported Media Type: expected a form (application/x-www-form-urlencoded), got application/json\n"));
    }

    @ParameterizedTest
    @MethodSource("requests")
    void aHandlerReadsTheForm(String contentType, String body, int status, String answer) throws Exception {
        Router router = Router.builder().post("/people", (req, res) -> {
            Form form = req.form();
            res.text(form.value("name", String.class) + " " + form.value("age", int.class, 0));
        }).build();
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults());
        feed(c, "POST /people HTTP/1.1\r\nHost: t\r\nContent-Type: " + contentType + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        RawResponse r = parseAll(drainAll(c)).get(0);
        assertThat(r.status()).isEqualTo(status);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(answer);
    }
}
