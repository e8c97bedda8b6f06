// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.uring.IoUring;
import java.util.concurrent.Executor;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The application of source document 000 ({@code ../shared/sources/000_7c82c9e5fa24be44.txt}) beside
 * the benchmark app, under the Spring profile {@value #PROFILE} only: its {@code @Async} pool (the
 * bean {@code taskExecutor}), its three services and {@link StressBenchmarkController}'s routes, and
 * its Netty configuration, 48 io_uring event loops with its socket options.
 *
 * <p>The document declares its Netty configuration as an {@code HttpServer} bean running on
 * {@code new IOUringEventLoopGroup(48)}; Spring Boot builds its embedded server itself and applies
 * {@link NettyServerCustomizer} beans, not an {@code HttpServer} bean, so the options are set here
 * through a customizer, and the 48 loops are the context's own Reactor Netty loops (property
 * {@code spindle.webflux.workers=48} in {@code application-source-000.properties}), which Reactor
 * Netty builds as a Netty 4.2 io_uring group (the document's {@code IOUringEventLoopGroup} was the
 * incubator's class) when the native library is on the class path.
 */
@Configuration(proxyBeanMethods = false)
@Profile(SourceDocument000.PROFILE)
@EnableAsync
class SourceDocument000 {
    /** The Spring profile that adds document 000's application. */
    static final String PROFILE = "source-000";

    private static final int BUFFER_BYTES = 1024 * 1024;

    /** The document's scheduler configuration, call for call. */
    @Bean(name = "taskExecutor")
    Executor taskExecutor() {
        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
        executor.setCorePoolSize(100);
        executor.setMaxPoolSize(200);
        executor.setQueueCapacity(1000);
        executor.setThreadNamePrefix("AsyncThread-");
        executor.setDaemon(true);
        executor.initialize();
        return executor;
    }

    /**
     * The document's {@code HttpServer} options, applied to Boot's server. Its event loops are not
     * set here: Boot's {@code NettyWebServer} runs the server on the context's
     * {@code ReactorResourceFactory} loops as it starts, after every customizer, so a
     * {@code runOn} here would be overridden; the profile's properties
     * ({@code application-source-000.properties}) give those loops the document's 48 threads, and
     * Reactor Netty puts them on io_uring when Netty's native io_uring library loads.
     *
     * @return the customizer
     * @throws IllegalStateException when Netty's io_uring transport cannot run here (no native
     *         library on the class path, or a kernel that refuses io_uring): the document's setup
     *         cannot be reproduced, and Reactor Netty would silently fall back to epoll
     */
    @Bean
    NettyServerCustomizer documentNettyConfig() {
        if (!IoUring.isAvailable()) {
            // the reason as text, not as the cause: it is often an IOException, which the launcher would
            // report as a failure to bind
            throw new IllegalStateException("source document 000 runs on io_uring event loops, and Netty's io_uring "
                    + "transport is unavailable here: " + IoUring.unavailabilityCause());
        }
        return server -> server
                .option(ChannelOption.SO_BACKLOG, 128)
                .option(ChannelOption.TCP_FASTOPEN, 1024)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_RCVBUF, BUFFER_BYTES)
                .childOption(ChannelOption.SO_SNDBUF, BUFFER_BYTES);
    }

    @Bean
    StressBenchmarkController.AsyncDateService asyncDateService() {
        return new StressBenchmarkController.AsyncDateService();
    }

    @Bean
    StressBenchmarkController.AsyncMonoService asyncMonoService() {
        return new StressBenchmarkController.AsyncMonoService();
    }

    @Bean
    StressBenchmarkController.NoBlockService noBlockService() {
        return new StressBenchmarkController.NoBlockService();
    }
}
