// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.vertx;

import dev.spindle.references.support.BenchmarkLimits;
import dev.spindle.references.support.Fixtures;
import dev.spindle.references.support.ReferenceLauncher;
import dev.spindle.references.support.RemoteDownstream;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmark app on Vert.x 5 with Vert.x Web, in the style of Vert.x's own docs: a
 * {@link BenchmarkVerticle} (an {@code HttpServer} with a {@code Router}) deployed with
 * {@code DeploymentOptions.setInstances(workers)} on a {@link Vertx} with that many event loops,
 * one instance per loop, all listening on the same port, which Vert.x shares among them. The
 * transport is Vert.x's default, the JDK's NIO (no native transport on the classpath).
 *
 * <p>Launcher: {@code VertxServer <port> [workers]}. {@code workers} (default: the number of
 * processors) is the number of event loops and verticle instances. Blocking handlers
 * ({@code /blocking/{ms}} and {@code /remote-blocking/{ms}}) run on Vert.x's worker pool, by
 * default {@value VertxOptions#DEFAULT_WORKER_POOL_SIZE} threads (Vert.x's own default), set by
 * {@code -D}{@value #WORKER_POOL_PROPERTY}: it caps how many of those requests run at once, the
 * rest queue for a thread (at the default, {@code /blocking/100} serves at most 200 requests a
 * second). {@code /delay} and {@code /remote} hold no thread. The remote routes call the
 * downstream named by {@code -Dspindle.remote} (read at start). {@code -Dspindle.host} sets the
 * address (127.0.0.1).
 *
 * <p>Logging: Vert.x picks SLF4J by itself when a binding is on the classpath (logback here), as
 * Netty does, so logback.xml governs both.
 */
public final class VertxServer implements AutoCloseable {
    /** The system property sizing Vert.x's worker pool, which runs the blocking routes. */
    public static final String WORKER_POOL_PROPERTY = "spindle.vertx.workerPoolSize";
    /** How long closing lets requests in flight finish: the benchmark's longest wait. */
    static final Duration SHUTDOWN_GRACE = Duration.ofMillis(BenchmarkLimits.MAX_BLOCKING_MS);
    /** The file {@code /download} serves, written once per process. */
    private static final Path DOWNLOAD = Fixtures.downloadFile(BenchmarkLimits.DOWNLOAD_BYTES);
    private static final Logger log = LoggerFactory.getLogger(VertxServer.class);

    private final String host;
    private final int requestedPort;
    private final int workers;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final AtomicInteger boundPort = new AtomicInteger();
    /** The broadcast room and the event streams: one per server, across its event loops. */
    private final LiveRoutes live = new LiveRoutes();
    private Vertx vertx;
    private HttpClient jdkClient;

    /**
     * A server not yet started.
     *
     * @param host the address to bind
     * @param port the port, 0 for a free one
     * @param workers the number of event loops, one verticle instance on each
     */
    public VertxServer(String host, int port, int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1: " + workers);
        }
        this.host = host;
        this.requestedPort = port;
        this.workers = workers;
    }

    /**
     * Deploys the instances and waits until all of them listen.
     *
     * @return this server
     * @throws IOException if it could not bind or deploy (everything started is closed again)
     */
    public VertxServer start() throws IOException {
        int workerPool = Integer.getInteger(WORKER_POOL_PROPERTY, VertxOptions.DEFAULT_WORKER_POOL_SIZE);
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(workers).setWorkerPoolSize(workerPool));
        jdkClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        RemoteDownstream downstream = RemoteDownstream.fromSystemProperties();
        RemoteDownstream tlsDownstream = RemoteDownstream.fromSystemProperties(RemoteDownstream.TLS_PROPERTY);
        try {
            int listen = requestedPort == 0 ? freePort() : requestedPort;
            vertx.deployVerticle(() -> new BenchmarkVerticle(host, listen, DOWNLOAD, downstream, tlsDownstream, jdkClient, SHUTDOWN_GRACE, boundPort, live),
                            new DeploymentOptions().setInstances(workers))
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            close();
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IOException("cannot listen on " + host + ":" + requestedPort + ": " + cause.getMessage(), cause);
        } catch (IOException e) {
            close();
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IOException("interrupted while starting", e);
        }
        return this;
    }

    /**
     * A port free now, for port 0: Vert.x shares a listening socket among instances only on a port
     * they name (on port 0 each would bind a random port of its own). Another process could take it
     * before the instances bind; start then fails, as for a taken port.
     */
    private int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(host, 0));
            return probe.getLocalPort();
        }
    }

    /** The WebSocket and event-stream routes' shared state, for tests. */
    LiveRoutes live() {
        return live;
    }

    /** @return the bound port */
    public int port() {
        return boundPort.get();
    }

    /**
     * Closes Vert.x: each instance stops accepting, its connections close after the answer in flight
     * (within {@link #SHUTDOWN_GRACE}), then the clients close; idempotent.
     */
    @Override
    public synchronized void close() {
        if (terminated.getCount() == 0) {
            return;
        }
        if (vertx != null) {
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(SHUTDOWN_GRACE.toSeconds() + 5, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                log.warn("Vert.x did not close cleanly: {}", e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (jdkClient != null) {
            // nothing is in flight once Vert.x has closed: a call past the grace period has lost its request
            jdkClient.shutdownNow();
        }
        terminated.countDown();
    }

    /**
     * Waits until {@link #close()} has finished.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /**
     * {@code <port> [workers]}: serves until SIGTERM/SIGINT; usage and exit 2 on bad arguments, exit
     * 1 when it cannot start.
     *
     * @param args the port (0 picks a free one) and, optionally, the number of event loops
     */
    public static void main(String[] args) {
        ReferenceLauncher.run("VertxServer", VertxServer.class, args, Runtime.getRuntime().availableProcessors(),
                "event loops, one verticle instance each",
                (host, port, workers) -> {
                    VertxServer server = new VertxServer(host, port, workers).start();
                    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "vertx-shutdown"));
                    return ReferenceLauncher.Started.of(server.port(), server::awaitTermination);
                });
    }
}
