package dev.spindle.core.conformance;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The conformance suite for a reference server: a framework app in {@code references/} that serves
 * the benchmark app's fixed routes and knows nothing of Spindle. {@link #newServer} starts it in
 * this JVM on the configuration's host, port and worker count and ignores the router; the cases
 * that need anything else (a router of their own, configured timeouts, a connection limit) are
 * skipped with the reason {@link #lacks()} gives. A reference's own deviations on bad input are
 * declared in {@link #knownDeviations()} as for any server, and held to.
 */
public abstract class ReferenceConformanceSuite extends HttpConformanceSuite {
    /** A running reference server, as its module's test adapts it. */
    public interface Running {
        /** @return the bound port */
        int port();

        /** Stops it gracefully and waits until it has. */
        void close();
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

    /** A reference serves its own fixed routes: it cannot take a router. */
    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = new EnumMap<>(Feature.class);
        lacks.put(Feature.CUSTOM_ROUTES, "a reference serves the benchmark app's fixed routes, not a Spindle Router");
        return lacks;
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
