// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.HttpServer;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The shutdown hook a started server registers: it closes the server, and goes away with it. */
class ServerLifecycleTest {
    /** A server that only counts its closes, through the lifecycle as real servers do. */
    private static final class CountingServer implements HttpServer {
        final ServerLifecycle lifecycle = new ServerLifecycle("counting");
        final AtomicInteger closes = new AtomicInteger();

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
}
