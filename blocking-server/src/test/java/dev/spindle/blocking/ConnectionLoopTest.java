// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the blocking loop itself must get right, beyond the conformance suite. */
@Timeout(30)
class ConnectionLoopTest {
    @Test
    void aStalledUploadToABlockingHandlerIsAnswered408AndClosed() throws Exception {
        Router routes = Router.builder()
                .post("/upload", Handler.blocking((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text("got " + in.transferTo(java.io.OutputStream.nullOutputStream()));
                    }
                }))
                .build();
        ServerConfig config = ServerConfig.defaults().port(0).workers(1).headerTimeout(Duration.ofMillis(500));
        try (HttpServer server = new ThreadPoolServer(config, routes).start();
             RawConnection c = new RawConnection(server.port())) {
            long started = System.nanoTime();
            RawResponse r = c.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly part").read();
            assertThat(r.status()).isEqualTo(408);
            assertThat(r.closes()).isTrue();
            assertThat(c.closedByPeer()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        }
    }

    /** A chunk-size line (or a chunk's CRLF) split across reads must make the handler's read wait for more, not spin. */
    @Test
    void aChunkedUploadSplitInsideItsFramingReachesABlockingHandler() throws Exception {
        Router routes = Router.builder()
                .post("/upload", Handler.blocking((req, res) -> res.text(new String(req.bodyStream().readAllBytes(), "US-ASCII"))))
                .build();
        try (HttpServer server = new ThreadPoolServer(ServerConfig.defaults().port(0).workers(1), routes).start();
             RawConnection c = new RawConnection(server.port())) {
            c.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r");
            Thread.sleep(200);
            c.send("\nworld\r");
            Thread.sleep(200);
            c.send("\n0\r\n\r\n");
            assertThat(c.read().bodyText()).isEqualTo("helloworld");
        }
    }

    @Test
    void aClientGoneMidStreamStopsTheBodyWriter() throws Exception {
        CountDownLatch writerEnded = new CountDownLatch(1);
        Router routes = Router.builder()
                .get("/endless", (req, res) -> res.stream(out -> {
                    try {
                        byte[] chunk = new byte[8192];
                        while (true) {
                            out.write(chunk);
                        }
                    } finally {
                        writerEnded.countDown();
                    }
                }))
                .build();
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().port(0), routes).start()) {
            try (RawConnection c = new RawConnection(server.port())) {
                c.send("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n");
                c.socket().getInputStream().readNBytes(100_000);
                c.socket().setSoLinger(true, 0);
            }
            assertThat(writerEnded.await(10, TimeUnit.SECONDS)).as("the writer was stopped").isTrue();
        }
    }

    @Test
    void theSingleThreadServesTheNextClientWhileTheLastOneLingers() throws Exception {
        try (HttpServer server = new SingleThreadServer(ServerConfig.defaults().port(0), BenchmarkApp.routes()).start();
             RawConnection first = new RawConnection(server.port())) {
            assertThat(first.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().closes()).isTrue();
            // the first client keeps its side open: the server lingers on it for half a second
            long started = System.nanoTime();
            try (RawConnection next = new RawConnection(server.port())) {
                assertThat(next.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().bodyText()).isEqualTo("Hello, World!");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(300));
            assertThat(first.closedByPeer()).isTrue();
        }
    }
}
