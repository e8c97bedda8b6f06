// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * What one logger logs during each test, for tests that assert on log output:
 * {@code @RegisterExtension final LogCapture log = LogCapture.of("dev.spindle.core.exchange.LoopWatch");}.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {
    private final Logger logger;
    private final boolean alone;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(String name, boolean alone) {
        this.logger = (Logger) LoggerFactory.getLogger(name);
        this.alone = alone;
    }

    /** Captures {@code name}'s events; they still reach the configured appenders too. */
    public static LogCapture of(String name) {
        return new LogCapture(name, false);
    }

    /** Captures {@code name}'s events and keeps them from the configured appenders (a test that logs a storm). */
    public static LogCapture alone(String name) {
        return new LogCapture(name, true);
    }

    /** The captured logger, for code under test that takes one. */
    public Logger logger() {
        return logger;
    }

    /** Every event logged since the test began, in order. */
    public List<ILoggingEvent> events() {
        return appender.list;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        appender.list.clear();
        appender.start();
        logger.addAppender(appender);
        if (alone) {
            logger.setAdditive(false);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(appender);
        if (alone) {
            logger.setAdditive(true);
        }
    }
}
