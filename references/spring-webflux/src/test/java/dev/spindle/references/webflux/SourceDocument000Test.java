// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.uring.IoUring;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Document 000's routes exist only under its profile, and the profile refuses to start without
 * io_uring rather than measure another transport. (The routes' answers are checked by
 * scripts/lib/sources/doc000-webflux.sh, which runs them with Netty's native io_uring library; the
 * test class path has none, so the matrix's reference keeps epoll.)
 */
class SourceDocument000Test {
    @Test
    void withoutTheProfileTheDocumentsRoutesAreNotServed() throws Exception {
        try (ConfigurableApplicationContext context = SpringWebFluxServer.start("127.0.0.1", 0, 1);
                HttpClient client = HttpClient.newHttpClient()) {
            for (String route : new String[] {"/stress-benchmark-01", "/stress-benchmark-02", "/stress-benchmark-03"}) {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + SpringWebFluxServer.port(context) + route)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(route).isEqualTo(404);
            }
        }
    }

    @Test
    void theProfileFailsToStartWhenIoUringIsUnavailable() {
        assertThat(IoUring.isAvailable()).as("the test class path has no native io_uring library").isFalse();
        assertThatThrownBy(() -> SpringWebFluxServer.start("127.0.0.1", 0, 1,
                "--spring.profiles.active=" + SourceDocument000.PROFILE).close())
                .hasStackTraceContaining("IllegalStateException: source document 000 runs on io_uring event loops, "
                        + "and Netty's io_uring transport is unavailable here");
    }
}
