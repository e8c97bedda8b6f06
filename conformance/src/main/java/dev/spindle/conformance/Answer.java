// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.conformance.h2.H2Connection;
import dev.spindle.conformance.h2.H2Response;
import dev.spindle.conformance.h2.Header;
import dev.spindle.core.testing.RawResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One answer as the conformance sections read it, whichever protocol carried it: the status, the
 * fields without HTTP/2's pseudo-headers, and the body.
 */
record Answer(int status, List<Header> headers, byte[] body) {
    /** {@return the first value of the field {@code name}, any case, or null} */
    String header(String name) {
        for (Header h : headers) {
            if (h.name().equalsIgnoreCase(name)) {
                return h.value();
            }
        }
        return null;
    }

    /** {@return every value of the field {@code name}, in order} */
    List<String> all(String name) {
        List<String> values = new ArrayList<>();
        for (Header h : headers) {
            if (h.name().equalsIgnoreCase(name)) {
                values.add(h.value());
            }
        }
        return values;
    }

    /** Name and value of every field but the date, names in lower case (HTTP/2 sends them so). */
    List<String> withoutDate() {
        List<String> fields = new ArrayList<>();
        for (Header h : headers) {
            if (!h.name().equalsIgnoreCase("date")) {
                fields.add(h.name().toLowerCase(Locale.ROOT) + ": " + h.value());
            }
        }
        return fields;
    }

    String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * One request on a connection of its own to the suite's server on {@code port}, over HTTP/2
     * when {@code h2}, else HTTP/1.1 (without {@code Connection: close}, so that the server's own
     * choice to close shows; the answer is read by its framing); a body is written beside the read, so an answer the server
     * gives before it has read the whole body (and its close) is read whole.
     *
     * @param body the request body, or null for none
     * @param fields request fields beyond the method, target and host; names in lower case for HTTP/2
     */
    static Answer fetch(SuiteTarget suite, int port, boolean h2, String method, String path, byte[] body, Header... fields)
            throws IOException {
        return h2 ? http2(suite, port, method, path, body, fields) : http1(suite, port, method, path, body, fields);
    }

    private static Answer http1(SuiteTarget suite, int port, String method, String path, byte[] body, Header... fields)
            throws IOException {
        StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: x\r\n");
        for (Header f : fields) {
            head.append(f.name()).append(": ").append(f.value()).append("\r\n");
        }
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        try (RawConnection c = suite.connect(port)) {
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    c.send(head.toString());
                    if (body != null) {
                        c.send(body);
                    }
                } catch (IOException e) {
                    // the server answered and closed before the whole body went
                }
            });
            RawResponse r = c.read(method.equals("HEAD"));
            join(writer);
            List<Header> headers = new ArrayList<>();
            for (RawResponse.Field f : r.headers()) {
                headers.add(new Header(f.name(), f.value()));
            }
            return new Answer(r.status(), headers, r.body());
        }
    }

    private static Answer http2(SuiteTarget suite, int port, String method, String path, byte[] body, Header... fields)
            throws IOException {
        try (H2Connection c = suite.openH2(port)) {
            c.handshake();
            Header[] all = fields;
            if (body != null) {
                all = java.util.Arrays.copyOf(fields, fields.length + 1);
                all[fields.length] = new Header("content-length", Integer.toString(body.length));
            }
            c.request(1, method, path, body == null, all);
            if (body != null) {
                try {
                    c.body(1, body, true);
                } catch (AssertionError | IOException e) {
                    // answered (and reset) before the whole body went: the answer is what counts
                }
            }
            H2Response r = c.response(1);
            List<Header> headers = new ArrayList<>();
            for (Header h : r.headers()) {
                if (!h.name().startsWith(":")) {
                    headers.add(h);
                }
            }
            return new Answer(r.status(), headers, r.body());
        }
    }

    private static void join(Thread writer) throws IOException {
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the request body was written");
        }
    }
}
