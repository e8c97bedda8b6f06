// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.fuzz;

import dev.spindle.core.Handler;
import dev.spindle.core.HttpException;
import dev.spindle.core.Request;
import dev.spindle.core.Router;
import dev.spindle.core.http1.FuzzAccess;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The routes the connection fuzz tests serve. Most paths of one or two segments, under the common
 * methods, answer with a description of the request as the handler saw it, so a test can compare
 * it with what the parser alone makes of the same bytes. {@code /users/{id}} and {@code /search}
 * percent-decode like the benchmark app; {@code /slow/...} is marked blocking, so it is offloaded
 * when the connection has an executor.
 */
final class FuzzRoutes {
    static final String DESCRIBED = "X-Described";
    private static final List<String> METHODS = List.of("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS");

    private FuzzRoutes() {
    }

    static Router routes() {
        Handler describe = (req, res) -> res.header(DESCRIBED, "yes").contentType("text/plain").body(describe(req));
        Router.Builder b = Router.builder()
                .get("/users/{id}", (req, res) -> res.text(req.pathParam("id")))
                .get("/search", (req, res) -> {
                    String q = req.queryParam("q");
                    if (q == null) {
                        throw new HttpException(400, "missing query parameter q");
                    }
                    res.text(q);
                })
                .get("/slow/{x}", Handler.blocking(describe))
                .post("/slow/{x}", Handler.blocking(describe));
        for (String method : METHODS) {
            b.route(method, "/", describe).route(method, "/{a}", describe).route(method, "/{a}/{b}", describe);
        }
        return b.build();
    }

    static byte[] describe(Request r) {
        List<String> headers = new ArrayList<>(r.headerCount());
        for (int i = 0; i < r.headerCount(); i++) {
            headers.add(r.headerName(i) + ": " + r.headerValue(i));
        }
        return describe(r.methodName(), r.target(), r.version(), headers,
                new String(r.bodyBytes(), StandardCharsets.ISO_8859_1));
    }

    static byte[] describe(FuzzAccess.Parsed p) {
        return describe(p.method(), p.target(), p.version(), p.headers(), p.body());
    }

    private static byte[] describe(String method, String target, String version, List<String> headers, String body) {
        StringBuilder sb = new StringBuilder().append(method).append(' ').append(target).append(' ').append(version).append('\n');
        for (String h : headers) {
            sb.append(h).append('\n');
        }
        return sb.append('\n').append(body).toString().getBytes(StandardCharsets.ISO_8859_1);
    }
}
