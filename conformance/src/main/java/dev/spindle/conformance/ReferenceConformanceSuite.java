// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The conformance suite for a reference server: a framework app in {@code references/} (or
 * {@code netty-server/}, the Netty reference) that serves the benchmark app's fixed routes and
 * knows nothing of Spindle. {@link #newServer} starts it in
 * this JVM on the configuration's host, port and worker count and ignores the router; the cases
 * that need anything else (a router of their own, configured timeouts, a connection limit) are
 * skipped with the reason {@link #lacks()} gives. A reference's own deviations on bad input are
 * declared in {@link #knownDeviations()} as for any server, and held to. docs/references.md lists
 * every declaration of every reference, and {@link #referencesPageListsExactlyTheDeclaredDeviations}
 * holds the page to the code.
 *
 * <p>A reference reads its downstream for {@code /remote/{ms}} and {@code /remote-blocking/{ms}}
 * from the system properties {@value #REMOTE_PROPERTY} and {@value #REMOTE_MARGIN_PROPERTY} when it
 * starts (as its launcher does); the remote cases here set them around a start.
 */
@ExtendWith(ReferenceConformanceSuite.DeclaredSkips.class)
public abstract class ReferenceConformanceSuite extends HttpConformanceSuite {
    /** A running reference server, as its module's test adapts it. */
    public interface Running {
        /** @return the bound port */
        int port();

        /** Stops it gracefully and waits until it has. */
        void close();

        /**
         * A running reference as the suite sees it.
         *
         * @param port reads its bound port
         * @param close stops it gracefully and waits until it has
         * @return it as {@code Running}
         */
        static Running of(IntSupplier port, Runnable close) {
            return new Running() {
                @Override
                public int port() {
                    return port.getAsInt();
                }

                @Override
                public void close() {
                    close.run();
                }
            };
        }
    }

    /**
     * Starts the reference in this JVM, serving the benchmark app.
     *
     * @param host the address to bind
     * @param port the port, 0 for a free one
     * @param workers what {@code [workers]} means for this framework (event loops, pool threads)
     * @return the running server
     * @throws IOException if it cannot bind
     */
    protected abstract Running startReference(String host, int port, int workers) throws IOException;

    /**
     * References speak HTTP/1.1 unless their module says otherwise (a framework configured for h2c
     * in its own idiom overrides this).
     *
     * @return false
     */
    @Override
    protected boolean speaksHttp2() {
        return false;
    }

    /**
     * The suite's cases this reference answers in a way no {@link Deviation} can state (a status
     * line the suite cannot read, no answer at all, a close where the case expects the answer): test
     * method name → the invocation's display name, or {@code ""} for every invocation → the reason.
     * They are skipped with the reason; the reference's own test holds it to what it does instead.
     *
     * @return the skipped cases, none by default
     */
    protected Map<String, Map<String, String>> skippedCases() {
        return Map.of();
    }

    /** Skips the cases a reference declares in {@link #skippedCases()}, with their reason. */
    static final class DeclaredSkips implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (context.getTestMethod().isEmpty()
                    || !(context.getTestInstance().orElse(null) instanceof ReferenceConformanceSuite suite)) {
                return ConditionEvaluationResult.enabled("not a case of a reference's suite");
            }
            Map<String, String> cases = suite.skippedCases().getOrDefault(context.getTestMethod().get().getName(), Map.of());
            // JUnit quotes text arguments in an invocation's display name: "blocking route"
            String reason = cases.containsKey("") ? cases.get("") : cases.get(context.getDisplayName().replace("\"", ""));
            return reason == null ? ConditionEvaluationResult.enabled("conforms")
                    : ConditionEvaluationResult.disabled(suite.getClass().getSimpleName() + " declares: " + reason);
        }
    }

    /** A reference serves its own fixed routes: it cannot take a router. */
    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = new EnumMap<>(Feature.class);
        lacks.put(Feature.CUSTOM_ROUTES, "a reference serves the benchmark app's fixed routes, not a Spindle Router");
        return lacks;
    }

    /** The documentation page that lists every reference's declarations. */
    private static final String REFERENCES_PAGE = "docs/references.md";

    /**
     * docs/references.md lists exactly what this reference declares: its section (the lines between
     * {@code <!-- declared by: ... -->}, naming this test class, and {@code <!-- end declared -->}) has
     * one item per declaration, {@code - `key`: explanation}, and {@link #declarations()} gives the keys.
     */
    @Test
    void referencesPageListsExactlyTheDeclaredDeviations() throws IOException {
        Path page = Path.of("").toAbsolutePath();
        while (page != null && !Files.isRegularFile(page.resolve(REFERENCES_PAGE))) {
            page = page.getParent();
        }
        assertThat(page).as("%s above %s", REFERENCES_PAGE, Path.of("").toAbsolutePath()).isNotNull();
        String me = getClass().getSimpleName();
        List<String> listed = new ArrayList<>();
        int sections = 0;
        boolean inside = false;
        for (String line : Files.readAllLines(page.resolve(REFERENCES_PAGE))) {
            if (line.startsWith("<!-- declared by:")) {
                inside = List.of(line.replace("<!-- declared by:", "").replace("-->", "").trim().split("\\s+")).contains(me);
                sections += inside ? 1 : 0;
            } else if (line.startsWith("<!-- end declared -->")) {
                inside = false;
            } else if (inside && line.startsWith("- `")) {
                listed.add(line.substring(3, line.indexOf('`', 3)));
            }
        }
        assertThat(sections).as("sections of %s declared by %s", REFERENCES_PAGE, me).isEqualTo(1);
        assertThat(new TreeSet<>(listed)).as("what %s lists for %s (each once)", REFERENCES_PAGE, me)
                .hasSameSizeAs(listed).isEqualTo(declarations());
    }

    /**
     * The keys of everything this reference declares, as docs/references.md lists them: {@code lacks
     * FEATURE}, {@code deviates: case -> status, closes|keeps the connection} (bad input),
     * {@code half-close: case -> ...}, {@code h2: case -> expectation} (or {@code -> skipped}) for the
     * HTTP/2 section, {@code skips: method} or {@code skips: method [invocation]}.
     */
    private TreeSet<String> declarations() {
        TreeSet<String> keys = new TreeSet<>();
        lacks().keySet().forEach(feature -> keys.add("lacks " + feature.name()));
        knownDeviations().forEach((name, d) -> keys.add("deviates: " + name + " -> " + answer(d)));
        halfCloseDeviations().forEach((name, d) -> keys.add("half-close: " + name + " -> " + answer(d)));
        http2Deviations().forEach((name, d) -> keys.add("h2: " + name + " -> "
                + (d.instead() == null ? "skipped" : d.instead().toString())));
        skippedCases().forEach((method, cases) -> cases.keySet().forEach(
                display -> keys.add("skips: " + method + (display.isEmpty() ? "" : " [" + display + "]"))));
        return keys;
    }

    private static String answer(Deviation d) {
        return (d.status() == Deviation.NO_STATUS_LINE ? "no status line" : Integer.toString(d.status()))
                + (d.closes() ? ", closes" : ", keeps the connection");
    }

    /** The property naming a reference's downstream (Spindle's {@code Downstream.PROPERTY}). */
    protected static final String REMOTE_PROPERTY = dev.spindle.benchmark.Downstream.PROPERTY;
    /** The property giving, in milliseconds, how long a remote call may take beyond its delay. */
    protected static final String REMOTE_MARGIN_PROPERTY = "spindle.remote.marginMs";

    /**
     * The remote routes, through the reference's own client, answer the body of a downstream (a
     * second instance of the same reference) with its content type; a non-numeric delay is 400.
     */
    @Test
    void referenceRemoteRoutesAnswerTheDownstreamsBody() throws Exception {
        try (HttpServer downstream = startWithDownstream(null);
             HttpServer up = startWithDownstream("http://127.0.0.1:" + downstream.port())) {
            assertRemoteRoutesRelay(up);
        }
    }

    /**
     * A downstream that refuses connections is 502, one that accepts and never answers 504 (after
     * the delay plus the margin, here 300 ms), none configured 503 naming the property.
     */
    @Test
    void referenceRemoteRoutesAnswerDownstreamFailures() throws Exception {
        // refused: a port held by a bound socket that never listens (a port closed before use could be
        // given to another test's server meanwhile, under -T2); mute: a listening socket that never
        // accepts, so the connection completes in the backlog and no answer ever comes
        try (Socket held = bound(); ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             HttpServer refused = startWithDownstream("http://127.0.0.1:" + held.getLocalPort());
             HttpServer mute = startWithDownstream("http://127.0.0.1:" + silent.getLocalPort());
             HttpServer none = startWithDownstream(null)) {
            for (String route : REMOTE_ROUTES) {
                assertRemoteFailures(route, refused, mute, none);
            }
        }
    }

    /** A socket bound to a free loopback port, not listening: connections to its port are refused. */
    private static Socket bound() throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return socket;
    }

    /** Starts the reference with {@code downstream} (null: none) and a 300 ms margin, the properties restored after. */
    private HttpServer startWithDownstream(String downstream) throws IOException {
        String oldRemote = System.getProperty(REMOTE_PROPERTY);
        String oldMargin = System.getProperty(REMOTE_MARGIN_PROPERTY);
        try {
            set(REMOTE_PROPERTY, downstream);
            set(REMOTE_MARGIN_PROPERTY, "300");
            return newServer(ServerConfig.defaults().port(0).workers(1), null).start();
        } finally {
            set(REMOTE_PROPERTY, oldRemote);
            set(REMOTE_MARGIN_PROPERTY, oldMargin);
        }
    }

    private static void set(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }

    @Override
    protected final HttpServer newServer(ServerConfig config, Router router) {
        return new Adapter(config);
    }

    /** The reference as an {@link HttpServer}, so the suite's lifecycle cases apply to it unchanged. */
    private final class Adapter implements HttpServer {
        private final ServerConfig config;
        private final CountDownLatch over = new CountDownLatch(1);
        private Running running;

        Adapter(ServerConfig config) {
            this.config = config;
        }

        @Override
        public synchronized HttpServer start() throws IOException {
            try {
                running = startReference(config.host(), config.port(), config.workers());
            } catch (IOException | RuntimeException e) {
                over.countDown();
                throw e;
            }
            return this;
        }

        @Override
        public InetSocketAddress address() {
            return new InetSocketAddress(config.host(), running.port());
        }

        @Override
        public synchronized void close() {
            if (running != null) {
                running.close();
            }
            over.countDown();
        }

        @Override
        public void awaitTermination() throws InterruptedException {
            over.await();
        }
    }
}
