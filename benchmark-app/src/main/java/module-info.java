// SPDX-License-Identifier: Apache-2.0
/**
 * The benchmark app every Spindle launcher serves: its routes
 * ({@link dev.spindle.benchmark.BenchmarkApp}), the downstream its remote routes call
 * ({@link dev.spindle.benchmark.Downstream}, on the JDK's HTTP client) and the servers' shared
 * command line ({@link dev.spindle.benchmark.Launcher}). An application, not part of the library:
 * only the launchers and the tests use it.
 */
module dev.spindle.benchmark {
    // its API speaks in core's types (Router, ServerConfig, HttpServer)
    requires transitive dev.spindle.core;
    // the remote routes call their downstream with the JDK's HTTP client
    requires java.net.http;

    exports dev.spindle.benchmark;
}
