// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import java.util.Date;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.annotation.Profile;
import org.springframework.scheduling.annotation.Async;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Source document 000's three routes and services as it writes them (profile
 * {@value SourceDocument000#PROFILE}): {@code /stress-benchmark-01} sleeps 1 s on the {@code @Async}
 * pool, {@code /stress-benchmark-02} sleeps 1 s on {@code Schedulers.boundedElastic()},
 * {@code /stress-benchmark-03} formats the date on {@code Schedulers.boundedElastic()} without any
 * sleep. Each answers {@code new Date().toString()}.
 */
@RestController
@Profile(SourceDocument000.PROFILE)
class StressBenchmarkController {
    private final AsyncDateService asyncDateService;
    private final AsyncMonoService asyncMonoService;
    private final NoBlockService noBlockService;

    StressBenchmarkController(AsyncDateService asyncDateService, AsyncMonoService asyncMonoService,
            NoBlockService noBlockService) {
        this.asyncDateService = asyncDateService;
        this.asyncMonoService = asyncMonoService;
        this.noBlockService = noBlockService;
    }

    @GetMapping("/stress-benchmark-01")
    CompletableFuture<String> stressBenchmark01() {
        return asyncDateService.getDateAsync();
    }

    @GetMapping("/stress-benchmark-02")
    Mono<String> stressBenchmark02() {
        return asyncMonoService.getDateAsync().subscribeOn(Schedulers.boundedElastic());
    }

    @GetMapping("/stress-benchmark-03")
    Mono<String> stressBenchmark03() {
        return noBlockService.getDateAsync().subscribeOn(Schedulers.boundedElastic());
    }

    /** The document's {@code AsyncDateService}: the sleep runs on the {@code taskExecutor} pool through Spring's {@code @Async} proxy. */
    static class AsyncDateService {
        @Async("taskExecutor")
        public CompletableFuture<String> getDateAsync() {
            // Simulate a long-running task
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return CompletableFuture.completedFuture(new Date().toString());
        }
    }

    /** The document's {@code AsyncMonoService}: a callable that sleeps 1 s, run where it is subscribed. */
    static class AsyncMonoService {
        Mono<String> getDateAsync() {
            return Mono.fromCallable(() -> {
                try {
                    // Simulate a long-running task
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return new Date().toString();
            });
        }
    }

    /** The document's {@code NoBlockService}: a callable that only formats the date. */
    static class NoBlockService {
        Mono<String> getDateAsync() {
            return Mono.fromCallable(() -> {
                return new Date().toString();
            });
        }
    }
}
