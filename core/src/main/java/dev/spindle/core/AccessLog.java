// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link ExchangeListener} that logs one line per exchange at INFO once it has ended:
 * {@code GET /users/42 HTTP/1.1 200 14 B 210 us} (method, target, protocol, status sent, body
 * bytes sent, time from the request's head to the answer's last byte written). Every exchange is
 * logged, routed or not: the connection's refusals ({@code - - HTTP/1.1 400 ...} when no request
 * line was read), handler timeouts with the 503 sent, and exchanges the client cut short
 * ({@code aborted}, with the status that was being sent, 0 if none) or the server refused
 * unprocessed ({@code refused}). It logs through the slf4j logger {@code dev.spindle.access}, so the
 * application's logging configuration decides where the lines go; with INFO off for that logger
 * it costs one check per exchange. Register it with {@link Router.Builder#listener}.
 */
public final class AccessLog implements ExchangeListener {
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
    public void exchangeEnded(ExchangeEnd end) {
        if (!log.isInfoEnabled()) {
            return;
        }
        String method = end.method().isEmpty() ? "-" : end.method();
        String target = end.target().isEmpty() ? "-" : end.target();
        long micros = end.durationNanos() / 1_000;
        switch (end.outcome()) {
            case COMPLETE -> log.info("{} {} {} {} {} B {} us", method, target, end.protocol(), end.status(),
                    end.responseBodyBytes() < 0 ? "?" : end.responseBodyBytes(), micros);
            case ABORTED -> log.info("{} {} {} {} aborted {} us", method, target, end.protocol(), end.status(), micros);
            case REFUSED -> log.info("{} {} {} refused", method, target, end.protocol());
        }
    }
}
