// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drain;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.spi.ServerLifecycle;
import dev.spindle.core.testing.LogCapture;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Health} through a router and a sans-I/O connection, as a prober sees it: the status, the
 * JSON body and the headers of {@code <prefix>/live} and {@code <prefix>/ready}, for checks that
 * are up, down, throw or hang, the application's ready flag, and the drain a server's close begins.
 */
@Timeout(30)
class HealthTest {
    private static final String JSON = "application/json";
    /** What a check that never answers waits for: a new one for each test, released after it. */
    private static volatile CountDownLatch never = new CountDownLatch(1);

    @RegisterExtension
    final LogCapture log = LogCapture.of(Health.class.getName());

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);

    @BeforeEach
    void arm() {
        never = new CountDownLatch(1);
    }

    @AfterEach
    void stop() {
        never.countDown();
        executor.shutdownNow();
    }

    /** One probe: how the health is set up, the request, and the answer expected. */
    record Case(String name, Consumer<Health> setUp, String method, String path, int status, String body) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Consumer<Health> none() {
        return h -> { };
    }

    static Stream<Case> probes() {
        return Stream.of(
                new Case("no checks: ready", none(), "GET", "/health/ready", 200, "{\"status\":\"UP\",\"checks\":{}}"),
                new Case("no checks: live", none(), "GET", "/health/live", 200, "{\"status\":\"UP\",\"checks\":{}}"),
                new Case("a check up", h -> h.check("db", () -> true), "GET", "/health/ready", 200,
                        "{\"status\":\"UP\",\"checks\":{\"db\":\"UP\"}}"),
                new Case("a check answering false", h -> h.check("db", () -> false), "GET", "/health/ready", 503,
                        "{\"status\":\"DOWN\",\"checks\":{\"db\":\"DOWN\"}}"),
                new Case("a check answering null", h -> h.check("db", () -> null), "GET", "/health/ready", 503,
                        "{\"status\":\"DOWN\",\"checks\":{\"db\":\"DOWN\"}}"),
                new Case("a check that throws", h -> h.check("db", () -> {
                    throw new IllegalStateException("test: the database is gone (expected in this test's log)");
                }), "GET", "/health/ready", 503, "{\"status\":\"DOWN\",\"checks\":{\"db\":\"DOWN\"}}"),
                new Case("a check that never answers, past the timeout", h -> h.timeout(Duration.ofMillis(200)).check("db", () -> {
                    awaitUninterruptibly(never);
                    return true;
                }), "GET", "/health/ready", 503, "{\"status\":\"DOWN\",\"checks\":{\"db\":\"DOWN\"}}"),
                new Case("one check of two down: both listed in order", h -> h.check("db", () -> true).check("cache", () -> false),
                        "GET", "/health/ready", 503, "{\"status\":\"DOWN\",\"checks\":{\"db\":\"UP\",\"cache\":\"DOWN\"}}"),
                new Case("two checks up", h -> h.check("db", () -> true).check("cache", () -> true),
                        "GET", "/health/ready", 200, "{\"status\":\"UP\",\"checks\":{\"db\":\"UP\",\"cache\":\"UP\"}}"),
                new Case("a name quoted as JSON", h -> h.check("a\"b", () -> true), "GET", "/health/ready", 200,
                        "{\"status\":\"UP\",\"checks\":{\"a\\\"b\":\"UP\"}}"),
                new Case("not ready: checks not run", h -> h.ready(false).check("db", () -> {
                    throw new AssertionError("a check run while not ready");
                }), "GET", "/health/ready", 503, "{\"status\":\"DOWN\",\"reason\":\"not ready\",\"checks\":{}}"),
                new Case("ready again", h -> h.ready(false).ready(true), "GET", "/health/ready", 200, "{\"status\":\"UP\",\"checks\":{}}"),
                new Case("draining", Health::markDraining, "GET", "/health/ready", 503,
                        "{\"status\":\"DOWN\",\"reason\":\"draining\",\"checks\":{}}"),
                new Case("draining beats ready(true)", h -> h.ready(true).markDraining(), "GET", "/health/ready", 503,
                        "{\"status\":\"DOWN\",\"reason\":\"draining\",\"checks\":{}}"),
                new Case("not ready: liveness is up", h -> h.ready(false), "GET", "/health/live", 200, "{\"status\":\"UP\",\"checks\":{}}"),
                new Case("draining: liveness is up", Health::markDraining, "GET", "/health/live", 200, "{\"status\":\"UP\",\"checks\":{}}"),
                new Case("a readiness check down: liveness is up", h -> h.check("db", () -> false), "GET", "/health/live", 200,
                        "{\"status\":\"UP\",\"checks\":{}}"),
                new Case("a liveness check down", h -> h.livenessCheck("deadlock", () -> false), "GET", "/health/live", 503,
                        "{\"status\":\"DOWN\",\"checks\":{\"deadlock\":\"DOWN\"}}"),
                new Case("a liveness check down: readiness is up", h -> h.livenessCheck("deadlock", () -> false), "GET", "/health/ready",
                        200, "{\"status\":\"UP\",\"checks\":{}}"),
                new Case("a liveness check up", h -> h.livenessCheck("deadlock", () -> true), "GET", "/health/live", 200,
                        "{\"status\":\"UP\",\"checks\":{\"deadlock\":\"UP\"}}"),
                new Case("HEAD, up", h -> h.check("db", () -> true), "HEAD", "/health/ready", 200, ""),
                new Case("HEAD, down", h -> h.check("db", () -> false), "HEAD", "/health/ready", 503, ""),
                new Case("HEAD, live", none(), "HEAD", "/health/live", 200, ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("probes")
    void probesAnswerTheirStatusWithJson(Case c) throws Exception {
        Health health = new Health();
        c.setUp().accept(health);
        RawResponse r = exchange(Router.builder().health("/health", health).build(), c.method(), c.path());
        assertThat(r.status()).isEqualTo(c.status());
        assertThat(r.bodyText()).isEqualTo(c.body());
        assertThat(r.header("Content-Type")).isEqualTo(JSON);
        assertThat(r.header("Cache-Control")).as("no cache keeps a probe's answer").isEqualTo("no-store");
        if (c.method().equals("HEAD")) {
            assertThat(Integer.parseInt(r.header("Content-Length"))).as("HEAD announces the GET body's length").isPositive();
        }
        assertThat(r.closes()).as("a probe keeps its connection").isFalse();
    }

    @Test
    void aProbeWhileACheckStillRunsSharesItsRun() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        Health health = new Health().timeout(Duration.ofMillis(200)).check("slow", () -> {
            runs.incrementAndGet();
            awaitUninterruptibly(release);
            return true;
        });
        Router router = Router.builder().health("/health", health).build();
        try {
            assertThat(exchange(router, "GET", "/health/ready").status()).as("timed out: down").isEqualTo(503);
            assertThat(exchange(router, "GET", "/health/ready").status()).isEqualTo(503);
            assertThat(runs).as("the second probe joined the run still in progress").hasValue(1);
        } finally {
            release.countDown();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        RawResponse r;
        do {
            r = exchange(router, "GET", "/health/ready");
        } while (r.status() != 200 && System.nanoTime() - deadline < 0);
        // the released run, if still in progress, or a new one
        assertThat(r.status()).as("up once the check answers within the timeout").isEqualTo(200);
    }

    @Test
    void aCheckChangingStatusIsLoggedOncePerChange() throws Exception {
        AtomicBoolean up = new AtomicBoolean(false);
        Router router = Router.builder().health("/health", new Health().check("ledger", up::get)).build();
        log.logger().setLevel(Level.INFO);   // the recovery is an INFO line; tests log WARN and above
        try {
            assertThat(exchange(router, "GET", "/health/ready").status()).isEqualTo(503);
            assertThat(exchange(router, "GET", "/health/ready").status()).isEqualTo(503);
            up.set(true);
            assertThat(exchange(router, "GET", "/health/ready").status()).isEqualTo(200);
            assertThat(exchange(router, "GET", "/health/ready").status()).isEqualTo(200);
        } finally {
            log.logger().setLevel(null);
        }
        // only this check's lines: a run of an earlier test's check may end meanwhile
        List<ILoggingEvent> events = log.events().stream().filter(e -> e.getFormattedMessage().contains("ledger")).toList();
        assertThat(events).extracting(ILoggingEvent::getLevel).containsExactly(Level.WARN, Level.INFO);
        assertThat(events.get(0).getFormattedMessage()).contains("DOWN");
        assertThat(events.get(1).getFormattedMessage()).contains("UP");
    }

    @Test
    void theLateAnswerOfARunThatTimedOutIsNoRecovery() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch answered = new CountDownLatch(1);
        AtomicBoolean slow = new AtomicBoolean(true);
        Health health = new Health().timeout(Duration.ofMillis(200)).check("archive", () -> {
            if (slow.get()) {
                awaitUninterruptibly(release);
                answered.countDown();
            }
            return true;
        });
        Router router = Router.builder().health("/health", health).build();
        log.logger().setLevel(Level.INFO);
        try {
            assertThat(exchange(router, "GET", "/health/ready").status()).isEqualTo(503);
            slow.set(false);
            release.countDown();
            assertThat(answered.await(10, TimeUnit.SECONDS)).as("the slow run answered, late").isTrue();
            Thread.sleep(50);   // what it would log, it logs at once
            assertThat(messages("archive")).as("a late up is no probe's answer").hasSize(1).allMatch(m -> m.contains("DOWN"));
            assertThat(exchange(router, "GET", "/health/ready").status()).isEqualTo(200);
            assertThat(messages("archive")).hasSize(2).last().asString().contains("UP again");
        } finally {
            log.logger().setLevel(null);
        }
    }

    /** The messages logged about the check {@code name}: an earlier test's run may end meanwhile and log its own. */
    private List<String> messages(String name) {
        return log.events().stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains(name)).toList();
    }

    @Test
    void theRouterMountsOneHealthAndKnowsIt() {
        Health health = new Health();
        Router router = Router.builder().health("/", health).get("/x", (req, res) -> res.text("x")).build();
        assertThat(router.health()).isSameAs(health);
        assertThat(Router.builder().build().health()).as("no health mounted").isNull();
        assertThat(Router.builder().filter((req, res, chain) -> chain.proceed()).health("/h", health).build().health())
                .as("with a pipeline too").isSameAs(health);
        assertThat(exchange(router, "GET", "/live").status()).isEqualTo(200);
        assertThat(exchange(router, "GET", "/ready").status()).isEqualTo(200);
        assertThat(exchange(router, "POST", "/ready").status()).as("GET and HEAD only").isEqualTo(405);
        assertThatThrownBy(() -> Router.builder().health("/a", health).health("/b", new Health()))
                .isInstanceOf(IllegalStateException.class);
        for (String bad : new String[] {"health", "/health/", ""}) {
            assertThatThrownBy(() -> Router.builder().health(bad, health)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void badChecksAndTimeoutsAreRefused() {
        Health health = new Health().check("db", () -> true);
        assertThatThrownBy(() -> health.check("db", () -> true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("db");
        health.livenessCheck("db", () -> true);   // liveness names are apart
        assertThatThrownBy(() -> health.timeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> health.timeout(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> health.check(null, () -> true)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> health.check("x", null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aServersCloseTurnsReadinessDownAndLeavesLivenessUp() throws Exception {
        Health health = new Health();
        Router router = Router.builder().health("/health", health).build();
        ServerLifecycle lifecycle = new ServerLifecycle("health-test", ServerConfig.defaults(), router);
        lifecycle.markStarted();
        lifecycle.started(new IdleServer(), false);
        assertThat(health.isReady()).isTrue();
        assertThat(exchange(router, "GET", "/health/ready").status()).isEqualTo(200);

        assertThat(lifecycle.beginClose()).isTrue();
        assertThat(health.isDraining()).isTrue();
        assertThat(health.isReady()).isFalse();
        RawResponse ready = exchange(router, "GET", "/health/ready");
        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.bodyText()).contains("\"reason\":\"draining\"");
        health.ready(true);
        assertThat(exchange(router, "GET", "/health/ready").status()).as("the application cannot undo a drain").isEqualTo(503);
        assertThat(exchange(router, "GET", "/health/live").status()).isEqualTo(200);
        lifecycle.markTerminated();
    }

    @Test
    void aServerThatNeverStartedLeavesItsHealthAlone() {
        Health health = new Health();
        ServerLifecycle lifecycle = new ServerLifecycle("never-started", ServerConfig.defaults(),
                Router.builder().health("/health", health).build());
        assertThat(lifecycle.beginClose()).isFalse();
        assertThat(health.isDraining()).isFalse();
    }

    /**
     * One request through a fresh connection, driven as a strategy drives it (write what it hands
     * out, wait for its wakeup, resume) until its answer is whole.
     */
    private RawResponse exchange(Router router, String method, String path) {
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults(), executor, wakeups::release);
        feed(c, method + " " + path + " HTTP/1.1\r\nHost: test\r\n\r\n");
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Set<Integer> bodiless = method.equals("HEAD") ? Set.of(0) : Set.of();
        while (true) {
            while (c.next().writes()) {
                written.writeBytes(drain(c));
            }
            List<RawResponse> answers = written.size() == 0 ? List.of() : tryParse(written.toByteArray(), bodiless);
            if (!answers.isEmpty()) {
                assertThat(answers).hasSize(1);
                return answers.get(0);
            }
            assertThat(System.nanoTime() - deadline).as("answered within 20 s").isNegative();
            try {
                if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    c.resume();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** The answers in {@code bytes}, or none while the last one is still partial. */
    private static List<RawResponse> tryParse(byte[] bytes, Set<Integer> bodiless) {
        try {
            return parseAll(bytes, bodiless);
        } catch (RuntimeException | AssertionError e) {
            return List.of();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** A server that is nothing but started, for the lifecycle's hook. */
    private static final class IdleServer implements HttpServer {
        @Override
        public HttpServer start() {
            return this;
        }

        @Override
        public InetSocketAddress address() {
            return new InetSocketAddress(0);
        }

        @Override
        public void close() {
        }

        @Override
        public void awaitTermination() {
        }
    }
}
