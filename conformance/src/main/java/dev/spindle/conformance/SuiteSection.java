// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * A section of the conformance suite with routes of its own ({@link CompressionCases},
 * {@link MultipartCases}, {@link WebServiceCases}; {@link ExchangeEndCases} starts a server per
 * case instead): it runs only on servers that serve the router they are given, and its cases share one server of the suite's strategy on
 * the section's {@link #router()}, started by the first case that asks for it (a suite that runs
 * none starts none) and closed after the last.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SuiteSection {
    /** The suite that runs the section: how to start its servers and reach them. */
    protected final SuiteTarget suite;
    private HttpServer server;

    protected SuiteSection(SuiteTarget suite) {
        this.suite = suite;
    }

    /** {@return the router of the section's shared server} */
    protected abstract Router router() throws IOException;

    /** {@return the section's shared server, started on first use} */
    protected final HttpServer server() throws IOException {
        if (server == null) {
            server = suite.start(suite.config(), router());
        }
        return server;
    }

    @BeforeEach
    final void assumeTheSuiteServesItsRoutes() {
        Assumptions.assumeTrue(suite.runs(), "the server does not serve a router of the suite's");
    }

    @AfterAll
    final void stopTheSharedServer() {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
