// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import dev.spindle.core.Request;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.LogCapture;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The blocked-loop detector on a sans-I/O connection served as an event loop serves it (a blocking
 * executor given, handlers run on the calling thread, here the test's): an inline handler that
 * sleeps past the threshold gets exactly one WARN naming its route, with the stack of the thread
 * taken while it sleeps; a fast handler gets none, nor a sleeping one on a connection of a
 * blocking server (no blocking executor: handlers have a thread of their own).
 */
class LoopWatchTest {
    private static final Duration THRESHOLD = Duration.ofMillis(100);
    private static final int SLEEP_MILLIS = 700;
    private static final Executor NEVER = task -> {
        throw new AssertionError("no blocking route here");
    };

    @RegisterExtension
    final LogCapture log = LogCapture.of(LoopWatch.class.getName());

    private static final Router ROUTES = Router.builder()
            .get("/fast", (req, res) -> res.text("fast"))
            .get("/sleep/{ms}", LoopWatchTest::sleepingHandler)
            .build();

    private static void sleepingHandler(Request req, Response res) throws InterruptedException {
        Thread.sleep(Integer.parseInt(req.pathParam("ms")));
        res.text("slept");
    }

    private static List<Integer> serve(HttpConnection c, String... targets) {
        StringBuilder requests = new StringBuilder();
        for (String target : targets) {
            requests.append("GET ").append(target).append(" HTTP/1.1\r\nHost: test\r\n\r\n");
        }
        feed(c, requests.toString());
        return parseAll(drainAll(c)).stream().map(r -> r.status()).toList();
    }

    @Test
    void aHandlerHoldingTheLoopPastTheThresholdGetsOneWarnWithItsRouteAndStack() throws Exception {
        HttpConnection loop = new HttpConnection(ROUTES, ServerConfig.defaults().blockedLoopThreshold(THRESHOLD), NEVER, () -> { });
        assertThat(serve(loop, "/fast", "/sleep/" + SLEEP_MILLIS, "/fast")).containsExactly(200, 200, 200);
        // a late sample would come within a few intervals of the end
        Thread.sleep(THRESHOLD.toMillis());

        List<ILoggingEvent> warns = log.events().stream().filter(e -> e.getLevel() == Level.WARN).toList();
        assertThat(warns).as("one WARN for one blocked run, not one per sample").hasSize(1);
        ILoggingEvent warn = warns.getFirst();
        assertThat(warn.getFormattedMessage())
                .startsWith(Thread.currentThread().getName() + " has been running the handler of GET /sleep/{ms} for at least ")
                .contains("(blocked-loop threshold 100 ms)")
                .contains("Handler.blocking");
        IThrowableProxy stack = warn.getThrowableProxy();
        assertThat(stack).as("the loop thread's stack").isNotNull();
        List<StackTraceElement> frames = Arrays.stream(stack.getStackTraceElementProxyArray())
                .map(StackTraceElementProxy::getStackTraceElement).toList();
        assertThat(frames).as("taken while the handler sleeps").anySatisfy(f -> {
            assertThat(f.getClassName()).isEqualTo(LoopWatchTest.class.getName());
            assertThat(f.getMethodName()).isEqualTo("sleepingHandler");
        });
        assertThat(frames.getFirst().getClassName()).as("the top frame is the blocking call").isEqualTo(Thread.class.getName());
    }

    @Test
    void fastHandlersAndHandlersOfBlockingServersGetNoWarn() throws Exception {
        HttpConnection loop = new HttpConnection(ROUTES, ServerConfig.defaults().blockedLoopThreshold(THRESHOLD), NEVER, () -> { });
        for (int i = 0; i < 20; i++) {
            assertThat(serve(loop, "/fast", "/sleep/10", "/fast")).containsExactly(200, 200, 200);
        }
        // a blocking server's connection: no blocking executor, every handler on the connection's own thread
        HttpConnection blocking = new HttpConnection(ROUTES, ServerConfig.defaults().blockedLoopThreshold(THRESHOLD));
        assertThat(serve(blocking, "/sleep/" + SLEEP_MILLIS)).containsExactly(200);
        // the detector off
        HttpConnection off = new HttpConnection(ROUTES, ServerConfig.defaults().blockedLoopThreshold(Duration.ZERO), NEVER, () -> { });
        assertThat(serve(off, "/sleep/" + SLEEP_MILLIS)).containsExactly(200);
        Thread.sleep(THRESHOLD.toMillis());
        assertThat(log.events()).as("no blocked-loop WARN").isEmpty();
    }
}
