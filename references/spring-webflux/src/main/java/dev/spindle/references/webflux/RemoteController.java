// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

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
import reactor.core.scheduler.Scheduler;

/**
 * The remote routes: {@code /remote/{ms}} and {@code /remote-blocking/{ms}} call the downstream's
 * {@code /delay/{ms}} and answer its body, or the failures {@link DownstreamCalls} maps.
 *
 * <p>{@code /remote} returns the {@code WebClient}'s {@code Mono}, completed on the event loops:
 * no thread waits while the downstream does. {@code /remote-blocking} is a plain
 * {@code RestClient} call on the JDK's client, which blocks its thread, so it runs on the same
 * offload scheduler as {@code /blocking} and never on an event loop. {@code /remote-tls} and
 * {@code /remote-h2} are {@code /remote} to {@code -Dspindle.remoteTls}, over HTTPS and over HTTP/2
 * (Reactor Netty's {@code HttpProtocol.H2}, h2 by ALPN).
 */
@RestController
class RemoteController {
    private final DownstreamCalls calls;
    private final DownstreamCalls tlsCalls;
    private final DownstreamCalls h2Calls;
    private final Scheduler blockingScheduler;

    RemoteController(DownstreamCalls downstreamCalls, @Qualifier(DownstreamClients.TLS) DownstreamCalls tlsCalls,
            @Qualifier(DownstreamClients.H2) DownstreamCalls h2Calls, Scheduler blockingScheduler) {
        this.calls = downstreamCalls;
        this.tlsCalls = tlsCalls;
        this.h2Calls = h2Calls;
        this.blockingScheduler = blockingScheduler;
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote/{ms}")
    Mono<ResponseEntity<byte[]>> remote(@PathVariable int ms) {
        return calls.callAsync(capped(ms, MAX_DELAY_MS));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote-tls/{ms}")
    Mono<ResponseEntity<byte[]>> remoteTls(@PathVariable int ms) {
        return tlsCalls.callAsync(capped(ms, MAX_DELAY_MS));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote-h2/{ms}")
    Mono<ResponseEntity<byte[]>> remoteH2(@PathVariable int ms) {
        return h2Calls.callAsync(capped(ms, MAX_DELAY_MS));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote-blocking/{ms}")
    Mono<ResponseEntity<byte[]>> remoteBlocking(@PathVariable int ms) {
        int delay = capped(ms, MAX_DELAY_MS);
        return Mono.fromCallable(() -> calls.callBlocking(delay)).subscribeOn(blockingScheduler);
    }
}
