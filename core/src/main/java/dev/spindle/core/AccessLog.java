// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A filter that logs one line per exchange at INFO, once its response is final:
 * {@code GET /users/42 200 14 B 210 us} (method, target, status, body bytes, time from the start
 * of the filter chain). A streamed body (file, stream, writer) is logged once it has been sent
 * ({@link Response#sent()}), with the bytes sent and the time until then, or {@code aborted} if
 * the connection ended first. It logs through
 * the slf4j logger {@code dev.spindle.access}, so the application's logging configuration decides
 * where the lines go; with INFO off for that logger it costs one check per exchange.
 * Register it first to have it see what every later filter did.
 */
public final class AccessLog implements Filter {
    private final Logger log;

    /** Logs to the logger {@code dev.spindle.access}. */
    public AccessLog() {
        this(LoggerFactory.getLogger("dev.spindle.access"));
    }

    /**
     * Logs to {@code log} instead of {@code dev.spindle.access}.
     *
     * @param log the logger for the lines, not null
     */
    public AccessLog(Logger log) {
        this.log = log;
    }

    @Override
    public CompletionStage<?> filter(Request request, Response response, Chain chain) {
        if (!log.isInfoEnabled()) {
            return chain.proceed();
        }
        long start = System.nanoTime();
        return chain.proceed().thenRun(() -> {
            if (!response.isStreamed()) {
                line(request.methodName(), request.target(), response.status(), response.bodyLength(), start);
                return;
            }
            String method = request.methodName();
            String target = request.target();
            int status = response.status();
            response.sent().whenComplete((bytes, failure) -> {
                if (failure != null) {
                    log.info("{} {} {} aborted {} us", method, target, status, (System.nanoTime() - start) / 1_000);
                } else {
                    line(method, target, status, bytes, start);
                }
            });
        });
    }

    private void line(String method, String target, int status, long bytes, long start) {
        log.info("{} {} {} {} B {} us", method, target, status, bytes < 0 ? "?" : bytes, (System.nanoTime() - start) / 1_000);
    }
}
