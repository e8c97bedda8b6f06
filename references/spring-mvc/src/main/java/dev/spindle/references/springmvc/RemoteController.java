// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.springmvc;

import static dev.spindle.references.spring.BenchmarkBodies.capped;
import static dev.spindle.references.support.BenchmarkLimits.MAX_DELAY_MS;
import static org.springframework.web.bind.annotation.RequestMethod.GET;
import static org.springframework.web.bind.annotation.RequestMethod.HEAD;

import dev.spindle.references.spring.DownstreamCalls;
import dev.spindle.references.spring.DownstreamClients;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The remote routes: {@code /remote/{ms}} and {@code /remote-blocking/{ms}} call the downstream's
 * {@code /delay/{ms}} and answer its body, or the failures {@link DownstreamCalls} maps.
 *
 * <p>{@code /remote-blocking} is a plain {@code RestClient} call that holds its request thread
 * (a virtual thread, or one of Tomcat's pool). {@code /remote} returns the {@code WebClient}'s
 * {@code Mono}: Spring MVC answers it through servlet async, so no request thread waits while the
 * downstream does. {@code /remote-tls} is {@code /remote} over HTTPS ({@code -Dspindle.remoteTls}, the
 * same WebClient shape); {@code /remote-h2} calls that downstream over HTTP/2 with a {@code RestClient}
 * on the JDK's client ({@code Version.HTTP_2}), holding its request thread as {@code /remote-blocking} does.
 */
@RestController
class RemoteController {
    private final DownstreamCalls calls;
    private final DownstreamCalls tlsCalls;
    private final DownstreamCalls h2Calls;

    RemoteController(DownstreamCalls downstreamCalls, @Qualifier(DownstreamClients.TLS) DownstreamCalls tlsCalls,
            @Qualifier(DownstreamClients.H2) DownstreamCalls h2Calls) {
        this.calls = downstreamCalls;
        this.tlsCalls = tlsCalls;
        this.h2Calls = h2Calls;
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote/{ms}")
    Mono<ResponseEntity<byte[]>> remote(@PathVariable int ms) {
        return calls.callAsync(capped(ms, MAX_DELAY_MS));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote-blocking/{ms}")
    ResponseEntity<byte[]> remoteBlocking(@PathVariable int ms) {
        return calls.callBlocking(capped(ms, MAX_DELAY_MS));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote-tls/{ms}")
    Mono<ResponseEntity<byte[]>> remoteTls(@PathVariable int ms) {
        return tlsCalls.callAsync(capped(ms, MAX_DELAY_MS));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote-h2/{ms}")
    ResponseEntity<byte[]> remoteH2(@PathVariable int ms) {
        return h2Calls.callBlocking(capped(ms, MAX_DELAY_MS));
    }
}
