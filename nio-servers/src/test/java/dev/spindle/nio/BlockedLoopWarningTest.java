// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Request;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.LogCapture;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The blocked-loop detector on a real event loop: an unmarked handler that sleeps on the loop gets
 * one WARN naming its route, with the loop thread's stack showing the sleep; the same sleep marked
 * {@link Handler#blocking} runs off the loop and gets none, nor do fast handlers.
 */
@Timeout(60)
class BlockedLoopWarningTest {
    @RegisterExtension
    final LogCapture log = LogCapture.of("dev.spindle.core.exchange.LoopWatch");

    private static void sleepsOnTheLoop(Request req, Response res) throws InterruptedException {
        Thread.sleep(800);
        res.text("slept");
    }

    private static Router routes() {
        return Router.builder()
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/report", BlockedLoopWarningTest::sleepsOnTheLoop)
                .get("/report-blocking", Handler.blocking(BlockedLoopWarningTest::sleepsOnTheLoop))
                .build();
    }

    private static int get(HttpServer server, String target) throws Exception {
        try (RawConnection c = new RawConnection(server.port())) {
            return c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").read().status();
        }
    }

    @Test
    void aHandlerSleepingOnTheLoopGetsOneWarnNamingItsRoute() throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(1).blockedLoopThreshold(Duration.ofMillis(200));
        try (HttpServer server = new MultiLoopServer(config, routes()).start()) {
            for (int i = 0; i < 10; i++) {
                assertThat(get(server, "/plaintext")).isEqualTo(200);
            }
            assertThat(get(server, "/report-blocking")).isEqualTo(200);
            assertThat(log.events()).as("no WARN for fast handlers nor for a blocking one off the loop").isEmpty();

            assertThat(get(server, "/report")).isEqualTo(200);
            Thread.sleep(200);
        }
        List<ILoggingEvent> warns = log.events().stream().filter(e -> e.getLevel() == Level.WARN).toList();
        assertThat(warns).hasSize(1);
        assertThat(warns.getFirst().getFormattedMessage()).contains("MultiLoopServer-loop-0 has been running the handler of GET /report for at least");
        List<StackTraceElement> frames = Arrays.stream(warns.getFirst().getThrowableProxy().getStackTraceElementProxyArray())
                .map(StackTraceElementProxy::getStackTraceElement).toList();
        assertThat(frames).anySatisfy(f -> assertThat(f.getMethodName()).isEqualTo("sleepsOnTheLoop"));
        assertThat(frames).anySatisfy(f -> assertThat(f.getClassName()).isEqualTo(EventLoop.class.getName()));
    }
}
