// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import static dev.spindle.references.spring.BenchmarkBodies.HELLO;
import static dev.spindle.references.spring.BenchmarkBodies.MAX_BODY_SIZE;
import static dev.spindle.references.spring.BenchmarkBodies.TEXT_PLAIN_UTF8;
import static dev.spindle.references.spring.BenchmarkBodies.capped;
import static dev.spindle.references.support.BenchmarkLimits.DOWNLOAD_BYTES;
import static dev.spindle.references.support.BenchmarkLimits.MAX_BLOCKING_MS;
import static dev.spindle.references.support.BenchmarkLimits.MAX_DELAY_MS;
import static org.springframework.web.bind.annotation.RequestMethod.GET;
import static org.springframework.web.bind.annotation.RequestMethod.HEAD;

import dev.spindle.references.spring.BenchmarkBodies.Delayed;
import dev.spindle.references.spring.BenchmarkBodies.Message;
import dev.spindle.references.spring.BenchmarkBodies.Query;
import dev.spindle.references.spring.BenchmarkBodies.Slept;
import dev.spindle.references.spring.BenchmarkBodies.User;
import dev.spindle.references.support.Fixtures;
import java.time.Duration;
import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The benchmark app's routes (the remote ones apart, in {@link RemoteController}) as one annotated
 * controller whose methods return {@code Mono}s: JSON bodies are records Jackson writes, text
 * bodies Strings.
 *
 * <p>Annotated controllers rather than functional {@code RouterFunction}s: Spring's reference
 * offers both as equals, most WebFlux applications are written this way, and it is the model of
 * the Spring MVC reference, so the two Spring rows differ by their stack (servlet threads against
 * Reactor Netty's event loops), not by how their routes are written.
 *
 * <p>Nothing here may block an event loop: {@code /blocking} sleeps on the scheduler chosen by
 * {@value Offload#PROPERTY}, {@code /delay} is a {@code Mono.delay} (a timer of Reactor's
 * parallel scheduler, no thread waits). The GET routes name HEAD too: WebFlux answers HEAD for a
 * GET mapping anyway, but lists in a 405's {@code Allow} only the methods a mapping names.
 */
@RestController
class BenchmarkController {
    private final Resource download = new FileSystemResource(Fixtures.downloadFile(DOWNLOAD_BYTES));
    private final Scheduler blockingScheduler;

    BenchmarkController(Scheduler blockingScheduler) {
        this.blockingScheduler = blockingScheduler;
    }

    @RequestMapping(method = {GET, HEAD}, path = "/plaintext", produces = TEXT_PLAIN_UTF8)
    Mono<String> plaintext() {
        return Mono.just("Hello, World!");
    }

    @RequestMapping(method = {GET, HEAD}, path = "/json", produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<Message> json() {
        return Mono.just(HELLO);
    }

    @RequestMapping(method = {GET, HEAD}, path = "/users/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<User> user(@PathVariable String id) {
        return Mono.just(new User(id));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/search", produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<Query> search(@RequestParam String q) {
        return Mono.just(new Query(q));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/health", produces = TEXT_PLAIN_UTF8)
    Mono<String> health() {
        return Mono.just("OK");
    }

    /** A blocking sleep, as Reactor's guide wraps one: a callable subscribed on the offload scheduler. */
    @RequestMapping(method = {GET, HEAD}, path = "/blocking/{ms}", produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<Slept> blocking(@PathVariable int ms) {
        int slept = capped(ms, MAX_BLOCKING_MS);
        return Mono.fromCallable(() -> {
            Thread.sleep(slept);
            return new Slept(slept);
        }).subscribeOn(blockingScheduler);
    }

    /** A timer on Reactor's parallel scheduler completes the answer; no thread waits meanwhile. */
    @RequestMapping(method = {GET, HEAD}, path = "/delay/{ms}", produces = MediaType.APPLICATION_JSON_VALUE)
    Mono<Delayed> delay(@PathVariable int ms) {
        int delayed = capped(ms, MAX_DELAY_MS);
        return Mono.delay(Duration.ofMillis(delayed)).thenReturn(new Delayed(delayed));
    }

    /**
     * The body back byte for byte with its Content-Type. A Content-Length over
     * {@value dev.spindle.references.spring.BenchmarkBodies#MAX_BODY_SIZE} is 413 before anything is read, and so is a chunked body once it
     * grows past it. The body is read from the request itself, not through {@code @RequestBody}:
     * WebFlux's codecs would refuse form content types (415) and copy the bytes into an array;
     * joined, the received buffers go back out as they are.
     */
    @PostMapping("/echo")
    Mono<ResponseEntity<DataBuffer>> echo(ServerHttpRequest request) {
        HttpHeaders headers = request.getHeaders();
        if (headers.getContentLength() > MAX_BODY_SIZE) {
            return Mono.error(new ResponseStatusException(HttpStatus.CONTENT_TOO_LARGE));
        }
        // the header as sent, not reparsed: echoed byte for byte like the body
        String type = headers.getFirst(HttpHeaders.CONTENT_TYPE);
        return DataBufferUtils.join(request.getBody(), MAX_BODY_SIZE)
                .onErrorMap(DataBufferLimitException.class, e -> new ResponseStatusException(HttpStatus.CONTENT_TOO_LARGE))
                .switchIfEmpty(Mono.fromSupplier(() -> DefaultDataBufferFactory.sharedInstance.allocateBuffer(0)))
                .map(body -> ResponseEntity.ok()
                        .header(HttpHeaders.CONTENT_TYPE, type != null ? type : MediaType.APPLICATION_OCTET_STREAM_VALUE)
                        .body(body));
    }

    /** The file by WebFlux's resource writer: zero-copy on Reactor Netty, with its Content-Length. */
    @RequestMapping(method = {GET, HEAD}, path = "/download")
    Mono<ResponseEntity<Resource>> download() {
        return Mono.just(ResponseEntity.ok().contentType(MediaType.APPLICATION_OCTET_STREAM).body(download));
    }
}
