package dev.spindle.references.webflux;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
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
 * <p>The document declares its Netty configuration as an {@code HttpServer} bean; Spring Boot builds
 * its embedded server itself and applies {@link NettyServerCustomizer} beans, not an
 * {@code HttpServer} bean, so the same calls are made here through a customizer. Netty 4.2 has no
 * {@code IOUringEventLoopGroup} (that was the incubator's class); its equivalent is a
 * {@link MultiThreadIoEventLoopGroup} of {@link IoUringIoHandler}s, which Reactor Netty runs io_uring
 * channels on.
 */
@Configuration(proxyBeanMethods = false)
@Profile(SourceDocument000.PROFILE)
@EnableAsync
class SourceDocument000 {
    /** The Spring profile that adds document 000's application. */
    static final String PROFILE = "source-000";

    /** The document's {@code new IOUringEventLoopGroup(48)}. */
    private static final int EVENT_LOOPS = 48;
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
     * The document's 48 io_uring event loops (daemon threads, as Reactor Netty's own, closed after
     * the server's graceful shutdown).
     *
     * @throws IllegalStateException when Netty's io_uring transport cannot run here (no native
     *         library on the class path, or a kernel that refuses io_uring): the document's setup
     *         cannot be reproduced, and a silent fallback would measure another one
     */
    @Bean(destroyMethod = "shutdownGracefully")
    EventLoopGroup ioUringEventLoops() {
        if (!IoUring.isAvailable()) {
            // the reason as text, not as the cause: it is often an IOException, which the launcher would
            // report as a failure to bind
            throw new IllegalStateException("source document 000 runs on io_uring event loops, and Netty's io_uring "
                    + "transport is unavailable here: " + IoUring.unavailabilityCause());
        }
        return new MultiThreadIoEventLoopGroup(EVENT_LOOPS, new DefaultThreadFactory("io_uring-loop", true),
                IoUringIoHandler.newFactory());
    }

    /** The document's {@code HttpServer} configuration, applied to Boot's server. */
    @Bean
    NettyServerCustomizer documentNettyConfig(EventLoopGroup ioUringEventLoops) {
        return server -> server
                .runOn(ioUringEventLoops)
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
