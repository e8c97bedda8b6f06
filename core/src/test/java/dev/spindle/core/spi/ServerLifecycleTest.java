// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Health;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.Await;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shutdown hook a started server registers: it closes the server, and goes away with it. And
 * the start of every close: readiness down at once, the server serving on for the drain delay,
 * then the drain.
 */
@Timeout(60)
class ServerLifecycleTest {
    /** A server that only counts its closes, through the lifecycle as real servers do. */
    private static final class CountingServer implements HttpServer {
        final ServerLifecycle lifecycle;
        final AtomicInteger closes = new AtomicInteger();
        /** When the drain began (beginClose returned true), System.nanoTime(); 0 before. */
        final AtomicLong drainBegan = new AtomicLong();
        /** Whether the closing thread had its interrupt status set when the drain began. */
        final AtomicBoolean interruptedAtDrain = new AtomicBoolean();

        CountingServer() {
            this(new ServerLifecycle("counting"));
        }

        CountingServer(ServerConfig config, Router router) {
            this(new ServerLifecycle("counting", config, router));
        }

        private CountingServer(ServerLifecycle lifecycle) {
            this.lifecycle = lifecycle;
        }

        @Override
        public HttpServer start() {
            lifecycle.markStarted();
            return this;
        }

        @Override
        public InetSocketAddress address() {
            return new InetSocketAddress(0);
        }

        @Override
        public void close() {
            if (lifecycle.beginClose()) {
                drainBegan.set(System.nanoTime());
                interruptedAtDrain.set(Thread.currentThread().isInterrupted());
                closes.incrementAndGet();
                lifecycle.markTerminated();
            }
        }

        @Override
        public void awaitTermination() throws InterruptedException {
            lifecycle.awaitTermination();
        }
    }

    @Test
    void theHookIsRegisteredAtStartAndRemovedByAnOrdinaryClose() {
        CountingServer server = new CountingServer();
        server.start();
        server.lifecycle.started(server, true);
        Thread hook = server.lifecycle.shutdownHook();
        assertThat(hook).isNotNull();
        // registered: removing it succeeds, so put it back for the close to remove
        assertThat(Runtime.getRuntime().removeShutdownHook(hook)).isTrue();
        Runtime.getRuntime().addShutdownHook(hook);

        server.close();
        assertThat(server.closes).hasValue(1);
        assertThat(Runtime.getRuntime().removeShutdownHook(hook)).as("still registered after close").isFalse();
    }

    @Test
    void theHookClosesTheServerGracefully() throws InterruptedException {
        CountingServer server = new CountingServer();
        server.start();
        server.lifecycle.started(server, true);
        Thread hook = server.lifecycle.shutdownHook();
        Runtime.getRuntime().removeShutdownHook(hook);
        // what the JVM does at shutdown: run the hook's thread
        hook.start();
        hook.join(5_000);
        assertThat(server.closes).hasValue(1);
        server.awaitTermination();
    }

    @Test
    void withoutTheHookNothingIsRegistered() {
        CountingServer server = new CountingServer();
        server.start();
        server.lifecycle.started(server, false);
        assertThat(server.lifecycle.shutdownHook()).isNull();
        server.close();
    }

    /** A started server with {@code delay} as its drain delay, serving a router that mounts {@code health}. */
    private static CountingServer delayed(Duration delay, Health health) {
        CountingServer server = new CountingServer(ServerConfig.defaults().drainDelay(delay),
                Router.builder().health("/health", health).build());
        server.start();
        server.lifecycle.started(server, false);
        return server;
    }

    @Test
    void readinessGoesDownAtOnceTheServerServesOnForTheDelayThenDrains() throws InterruptedException {
        Duration delay = Duration.ofMillis(1500);
        Health health = new Health();
        CountingServer server = delayed(delay, health);
        long closing = System.nanoTime();
        Thread closer = Thread.ofPlatform().start(server::close);
        Await.until(health::isDraining, "readiness is down");
        boolean drainingYet = server.lifecycle.isClosing();
        long seen = System.nanoTime() - closing;
        if (seen < delay.toNanos()) {
            // the drain cannot have begun before the delay ran out: the server still serves as usual
            assertThat(drainingYet).as("draining %d ms into a %d ms delay", seen / 1_000_000, delay.toMillis()).isFalse();
            assertThat(server.closes).as("no drain yet").hasValue(0);
        }
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(closer.isAlive()).as("close() returned").isFalse();
        assertThat(server.closes).hasValue(1);
        assertThat(server.lifecycle.isClosing()).isTrue();
        assertThat(server.drainBegan.get() - closing).as("the drain began after the delay").isGreaterThanOrEqualTo(delay.toNanos());
        assertThat(server.interruptedAtDrain).isFalse();
        server.awaitTermination();
    }

    @Test
    void withNoDelayTheDrainBeginsAtOnceWithReadinessDown() throws InterruptedException {
        Health health = new Health();
        CountingServer server = delayed(Duration.ZERO, health);
        server.close();
        assertThat(health.isDraining()).isTrue();
        assertThat(server.closes).hasValue(1);
        assertThat(server.lifecycle.isClosing()).isTrue();
        server.awaitTermination();
    }

    @Test
    void interruptingTheClosingThreadEndsTheDelayAndKeepsTheInterrupt() throws InterruptedException {
        Health health = new Health();
        CountingServer server = delayed(Duration.ofMinutes(10), health);
        Thread closer = Thread.ofPlatform().start(server::close);
        Await.until(health::isDraining, "readiness is down");
        Await.until(() -> closer.getState() == Thread.State.TIMED_WAITING, "the closer waits out the delay");
        closer.interrupt();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(closer.isAlive()).as("close() returned long before the 10 min delay").isFalse();
        assertThat(server.closes).hasValue(1);
        assertThat(server.interruptedAtDrain).as("the interrupt is kept for the drain").isTrue();
    }

    @Test
    void aSecondCloseDuringTheDelayWaitsForTheFirstToFinish() throws InterruptedException {
        Health health = new Health();
        CountingServer server = delayed(Duration.ofMillis(800), health);
        Thread first = Thread.ofPlatform().start(server::close);
        Await.until(health::isDraining, "readiness is down");
        Thread second = Thread.ofPlatform().start(server::close);
        second.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(second.isAlive()).isFalse();
        assertThat(server.closes).as("the first close was done when the second returned").hasValue(1);
        first.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(server.closes).as("one close in all").hasValue(1);
    }

    @Test
    void aServerThatNeverServedDoesNotWaitTheDelay() throws InterruptedException {
        Health health = new Health();
        // a start that failed after markStarted: the strategy ends it through beginClose, as a close
        CountingServer server = new CountingServer(ServerConfig.defaults().drainDelay(Duration.ofMinutes(10)),
                Router.builder().health("/health", health).build());
        server.start();
        Thread closer = Thread.ofPlatform().start(server::close);
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(closer.isAlive()).as("no 10 min delay").isFalse();
        assertThat(server.closes).hasValue(1);
        assertThat(health.isDraining()).as("it never said it was ready").isFalse();
    }
}
