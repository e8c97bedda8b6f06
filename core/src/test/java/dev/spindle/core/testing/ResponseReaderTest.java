// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The tests' response reader: how it frames bodies, and that it refuses what a server must not send. */
class ResponseReaderTest {

    private static RawResponse read(String wire, boolean head) throws IOException {
        return new ResponseReader(new ByteArrayInputStream(wire.getBytes(StandardCharsets.ISO_8859_1))).read(head);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Content-Length                 | HTTP/1.1 200 OK\\r\\nContent-Length: 3\\r\\n\\r\\nabcdef       | false | 200 | abc
            chunked with extension, trailer | HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n2;x=y\\r\\nab\\r\\n1\\r\\nc\\r\\n0\\r\\nT: v\\r\\n\\r\\n | false | 200 | abc
            until the end of the stream    | HTTP/1.1 200 OK\\r\\nConnection: close\\r\\n\\r\\nabc     | false | 200 | abc
            HEAD ignores the length        | HTTP/1.1 200 OK\\r\\nContent-Length: 3\\r\\n\\r\\n          | true  | 200 | ''
            304 has no body                | HTTP/1.1 304 Not Modified\\r\\nContent-Length: 3\\r\\n\\r\\n | false | 304 | ''
            interim response               | HTTP/1.1 100 Continue\\r\\n\\r\\nHTTP/1.1 200 OK\\r\\n   | false | 100 | ''
            no reason phrase               | HTTP/1.1 204\\r\\n\\r\\n                                   | false | 204 | ''
            equal Content-Length list      | HTTP/1.1 200 OK\\r\\nContent-Length: 2, 2\\r\\n\\r\\nab    | false | 200 | ab
            """)
    void framesTheBody(String name, String wire, boolean head, int status, String body) throws IOException {
        RawResponse r = read(wire.replace("\\r\\n", "\r\n"), head);
        assertThat(r.status()).as(name).isEqualTo(status);
        assertThat(r.bodyText()).as(name).isEqualTo(body);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            HTTP/1.0 status line           | HTTP/1.0 200 OK\\r\\n\\r\\n                               | malformed status line
            status out of range            | HTTP/1.1 600 Odd\\r\\n\\r\\n                              | malformed status line
            no space before the reason     | HTTP/1.1 200OK\\r\\n\\r\\n                                | malformed status line
            bare LF                        | HTTP/1.1 200 OK\\nContent-Length: 0\\n\\n               | bare LF
            space before the colon         | HTTP/1.1 200 OK\\r\\nServer : x\\r\\n\\r\\n                | malformed header line
            control character in a value   | HTTP/1.1 200 OK\\r\\nServer: a\u0001b\\r\\n\\r\\n          | malformed header line
            body shorter than its length   | HTTP/1.1 200 OK\\r\\nContent-Length: 5\\r\\n\\r\\nab        | 2 of its 5 bytes
            differing lengths              | HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nContent-Length: 3\\r\\n\\r\\nabc | differing Content-Length
            chunk without its CRLF         | HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n2\\r\\nabc\\r\\n0\\r\\n\\r\\n | not followed by CRLF
            bad chunk size                 | HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\n | malformed chunk size
            closed inside the head         | HTTP/1.1 200 OK\\r\\nContent-Le                             | closed inside the line
            nothing at all                 | ''                                                          | closed before a response
            """)
    void refusesMalformedResponses(String name, String wire, String message) {
        assertThatThrownBy(() -> read(wire.replace("\\r\\n", "\r\n").replace("\\n", "\n"), false))
                .as(name).isInstanceOf(IOException.class).hasMessageContaining(message);
    }

    @Test
    void readAllSplitsBackToBackResponsesAndSkipsBodiesOfHead() {
        String wire = "HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
                + "HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx";
        List<RawResponse> all = ResponseReader.readAll(wire.getBytes(StandardCharsets.ISO_8859_1), i -> i == 0);
        assertThat(all).extracting(RawResponse::status).containsExactly(100, 200, 201);
        assertThat(all.get(2).bodyText()).isEqualTo("x");
    }

    @Test
    void readAllReportsWhereTheBytesStopMakingSense() {
        byte[] wire = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\ngarbage\r\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> ResponseReader.readAll(wire, i -> false))
                .isInstanceOf(AssertionError.class).hasMessageContaining("response 1 at offset 38: malformed status line: garbage");
    }
}
