// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import dev.spindle.references.spring.DownstreamClients;
import dev.spindle.references.support.HttpDate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.resources.LoopResources;

/**
 * What the routes run on, created when the context starts and closed with it: the event loops
 * (shared by the server and the {@link WebClient} of {@link DownstreamClients}), the scheduler the
 * blocking routes are offloaded to, and the contract's headers.
 */
@Configuration(proxyBeanMethods = false)
@Import(DownstreamClients.class)
class ServerResources {
    /** The property {@code [workers]} sets: the event-loop count, 0 for Reactor Netty's default. */
    static final String WORKERS_PROPERTY = "spindle.webflux.workers";

    /** As an {@code @Async} pool is commonly sized: 100 threads, then a queue of 1,000, then up to 200 threads. */
    private static final int ASYNC_CORE = 100;
    private static final int ASYNC_MAX = 200;
    private static final int ASYNC_QUEUE = 1000;

    /**
     * The one {@code ReactorResourceFactory} of the context (Boot's own then steps aside): Boot's
     * Netty server runs on its loops, and the {@link WebClient} too, as Boot wires them by default.
     * Its own loops and pool rather than Reactor Netty's global ones, which the first context to
     * close would dispose under any other in the same JVM. The loops stop after the server's
     * graceful shutdown has drained the requests, and with them their downstream calls: no quiet
     * period to wait out.
     */
    @Bean
    ReactorResourceFactory reactorResourceFactory(@Value("${" + WORKERS_PROPERTY + ":0}") int workers) {
        ReactorResourceFactory resources = DownstreamClients.ownResources();
        // daemon threads, as Reactor Netty's own: Boot's non-daemon "server" thread keeps the JVM up
        resources.setLoopResourcesSupplier(() -> workers > 0
                ? LoopResources.create("spindle-webflux", workers, true)
                : LoopResources.create("spindle-webflux"));
        return resources;
    }

    /**
     * The {@code async-pool} offload's executor; its threads start only when tasks come, so it
     * costs nothing under the other offload. It keeps taking and finishing tasks until the context
     * is destroyed, after the server's graceful shutdown has drained the requests that wait on it.
     */
    @Bean
    ThreadPoolTaskExecutor asyncPool() {
        ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutor();
        pool.setThreadNamePrefix("async-pool-");
        pool.setCorePoolSize(ASYNC_CORE);
        pool.setMaxPoolSize(ASYNC_MAX);
        pool.setQueueCapacity(ASYNC_QUEUE);
        pool.setAcceptTasksAfterContextClose(true);
        pool.setWaitForTasksToCompleteOnShutdown(true);
        return pool;
    }

    /**
     * Where the blocking routes wait, by {@value Offload#PROPERTY}. Not disposed with the
     * context: bounded-elastic is Reactor's shared scheduler, and the pool closes itself.
     */
    @Bean(destroyMethod = "")
    Scheduler blockingScheduler(ThreadPoolTaskExecutor asyncPool) {
        return switch (Offload.fromSystemProperties()) {
            case BOUNDED_ELASTIC -> Schedulers.boundedElastic();
            case ASYNC_POOL -> Schedulers.fromExecutorService(asyncPool.getThreadPoolExecutor(), "async-pool");
        };
    }

    /**
     * The Spindle contract's {@code Server} and {@code Date} headers on every response WebFlux
     * writes, set as it commits so that error responses have them too: Boot has no server-header
     * property for Netty, and Reactor Netty writes no Date.
     */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    WebFilter contractHeaders() {
        HttpDate date = new HttpDate();
        return (exchange, chain) -> {
            HttpHeaders headers = exchange.getResponse().getHeaders();
            exchange.getResponse().beforeCommit(() -> {
                headers.set(HttpHeaders.SERVER, "spindle");
                headers.set(HttpHeaders.DATE, date.now());
                return Mono.empty();
            });
            return chain.filter(exchange);
        };
    }
}
