// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import dev.spindle.core.Router;
import dev.spindle.core.http1.BenchAccess;
import dev.spindle.core.testing.TestRoutes;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The router alone, over the benchmark app's routes ({@link TestRoutes}): a static route and a path variable. */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RouteBenchmark {
    private BenchAccess.Routing plaintext;
    private BenchAccess.Routing user;

    @Setup
    public void setup() {
        Router routes = TestRoutes.routes();
        plaintext = new BenchAccess.Routing(routes, Requests.wrkGet("/plaintext"));
        user = new BenchAccess.Routing(routes, Requests.wrkGet("/users/12345"));
        if (!"/plaintext".equals(plaintext.route()) || !"/users/{id}".equals(user.route())
                || !"12345".equals(user.request().pathParam("id"))) {
            throw new IllegalStateException("routing is broken");
        }
    }

    /** {@code /plaintext}: the first route, a single literal segment. */
    @Benchmark
    public String staticRoute() {
        return plaintext.route();
    }

    /** {@code /users/12345} against {@code /users/{id}}, after three static routes fail to match. */
    @Benchmark
    public String pathVariable() {
        return user.route();
    }
}
