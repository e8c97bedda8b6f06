package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.spindle.core.BenchmarkApp;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A server whose port is taken fails to start, and is then over: close and awaitTermination return. */
class FailedStartTest {
    @Test
    void aServerThatCannotBindIsTerminated() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(taken.getLocalPort()), BenchmarkApp.routes());
            assertThatThrownBy(server::start).isInstanceOf(BindException.class);
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
                server.close();
                server.awaitTermination();
            });
        }
    }
}
