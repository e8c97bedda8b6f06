// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** {@value Offload#PROPERTY} picks the scheduler the blocking routes wait on; a bad value stops the start. */
class OffloadTest {
    @Test
    void asyncPoolRunsTheBlockingWorkOnTheConfiguredPool() throws Exception {
        withOffload("async-pool", context -> {
            ThreadPoolTaskExecutor pool = context.getBean(ThreadPoolTaskExecutor.class);
            assertThat(pool.getCorePoolSize()).isEqualTo(100);
            assertThat(pool.getMaxPoolSize()).isEqualTo(200);
            assertThat(pool.getQueueCapacity()).isEqualTo(1000);
            Scheduler scheduler = context.getBean(Scheduler.class);
            String thread = Mono.fromCallable(() -> Thread.currentThread().getName()).subscribeOn(scheduler).block();
            assertThat(thread).startsWith("async-pool-");
            assertThat(get(context, "/blocking/20")).isEqualTo("{\"slept\":20}");
            assertThat(pool.getActiveCount() + pool.getThreadPoolExecutor().getCompletedTaskCount())
                    .as("tasks the pool took").isPositive();
        });
    }

    @Test
    void boundedElasticIsTheDefault() throws Exception {
        withOffload(null, context -> {
            assertThat(context.getBean(Scheduler.class)).isSameAs(Schedulers.boundedElastic());
            assertThat(get(context, "/blocking/20")).isEqualTo("{\"slept\":20}");
            assertThat(context.getBean(ThreadPoolTaskExecutor.class).getThreadPoolExecutor().getPoolSize())
                    .as("threads the unused pool started").isZero();
        });
    }

    @Test
    void anUnknownOffloadFailsTheStartNamingTheChoices() {
        assertThatThrownBy(() -> withOffload("elastic", context -> { }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("spindle.webflux.offload must be one of bounded-elastic, async-pool, not 'elastic'");
    }

    private static String get(ConfigurableApplicationContext context, String path) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + SpringWebFluxServer.port(context) + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            return r.body();
        }
    }

    private interface Check {
        void accept(ConfigurableApplicationContext context) throws Exception;
    }

    /** Starts the server with the property set to {@code offload} (null: unset), runs {@code check}, stops it. */
    private static void withOffload(String offload, Check check) throws Exception {
        String old = System.getProperty(Offload.PROPERTY);
        Consumer<String> set = v -> {
            if (v == null) {
                System.clearProperty(Offload.PROPERTY);
            } else {
                System.setProperty(Offload.PROPERTY, v);
            }
        };
        set.accept(offload);
        try (ConfigurableApplicationContext context = SpringWebFluxServer.start("127.0.0.1", 0, 1)) {
            check.accept(context);
        } finally {
            set.accept(old);
        }
    }
}
