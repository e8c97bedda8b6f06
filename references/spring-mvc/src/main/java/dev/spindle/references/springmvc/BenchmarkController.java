// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.springmvc;

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
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The benchmark app's routes (the remote ones apart, in {@link RemoteController}) as one
 * annotated controller: JSON bodies are records Jackson
 * writes, text bodies Strings; a wrong method is Spring MVC's own 405 with {@code Allow}, an
 * unknown path Boot's 404. The GET routes name HEAD too: Spring MVC answers HEAD for a GET
 * mapping anyway, but lists in {@code Allow} only the methods a mapping names.
 */
@RestController
class BenchmarkController {
    private final Resource download = new FileSystemResource(Fixtures.downloadFile(DOWNLOAD_BYTES));

    @RequestMapping(method = {GET, HEAD}, path = "/plaintext", produces = TEXT_PLAIN_UTF8)
    String plaintext() {
        return "Hello, World!";
    }

    @RequestMapping(method = {GET, HEAD}, path = "/json", produces = MediaType.APPLICATION_JSON_VALUE)
    Message json() {
        return HELLO;
    }

    @RequestMapping(method = {GET, HEAD}, path = "/users/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    User user(@PathVariable String id) {
        return new User(id);
    }

    @RequestMapping(method = {GET, HEAD}, path = "/search", produces = MediaType.APPLICATION_JSON_VALUE)
    Query search(@RequestParam String q) {
        return new Query(q);
    }

    @RequestMapping(method = {GET, HEAD}, path = "/health", produces = TEXT_PLAIN_UTF8)
    String health() {
        return "OK";
    }

    /** Holds its request thread while it sleeps: a platform pool thread, or a virtual thread. */
    @RequestMapping(method = {GET, HEAD}, path = "/blocking/{ms}", produces = MediaType.APPLICATION_JSON_VALUE)
    Slept blocking(@PathVariable int ms) throws InterruptedException {
        int slept = capped(ms, MAX_BLOCKING_MS);
        Thread.sleep(slept);
        return new Slept(slept);
    }

    /**
     * Spring MVC answers a {@code CompletableFuture} through servlet async: the request thread is
     * returned at once and the JDK's delay scheduler completes the future, so no thread waits.
     */
    @RequestMapping(method = {GET, HEAD}, path = "/delay/{ms}", produces = MediaType.APPLICATION_JSON_VALUE)
    CompletableFuture<Delayed> delay(@PathVariable int ms) {
        int delayed = capped(ms, MAX_DELAY_MS);
        return CompletableFuture.supplyAsync(() -> new Delayed(delayed),
                CompletableFuture.delayedExecutor(delayed, TimeUnit.MILLISECONDS, Runnable::run));
    }

    /** The body back byte for byte with its Content-Type; over {@value dev.spindle.references.spring.BenchmarkBodies#MAX_BODY_SIZE} bytes is 413. */
    @PostMapping("/echo")
    ResponseEntity<byte[]> echo(@RequestHeader(name = HttpHeaders.CONTENT_TYPE, required = false) String type,
            @RequestHeader HttpHeaders headers, InputStream body) throws IOException {
        if (headers.getContentLength() > MAX_BODY_SIZE) {
            throw new ResponseStatusException(HttpStatus.CONTENT_TOO_LARGE);
        }
        byte[] bytes = body.readNBytes(MAX_BODY_SIZE + 1);
        if (bytes.length > MAX_BODY_SIZE) {
            throw new ResponseStatusException(HttpStatus.CONTENT_TOO_LARGE);
        }
        return ResponseEntity.ok()
                .header(HttpHeaders.CONTENT_TYPE, type != null ? type : MediaType.APPLICATION_OCTET_STREAM_VALUE)
                .body(bytes);
    }

    @RequestMapping(method = {GET, HEAD}, path = "/download")
    ResponseEntity<Resource> download() {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_OCTET_STREAM).body(download);
    }
}
