// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.spring;

import dev.spindle.references.support.RemoteDownstream;
import io.netty.handler.timeout.ReadTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClientRequest;
import reactor.netty.resources.ConnectionProvider;

/**
 * The Spring references' calls to the downstream of their remote routes: {@link #callAsync} with
 * Spring's {@link WebClient} on Reactor Netty (no thread waits), {@link #callBlocking} with a
 * {@link RestClient} on the JDK's client (its thread waits). Both answer as {@link RemoteDownstream}
 * tabulates: the downstream's body and content type, 502 when it fails or answers other than 200,
 * 504 past its timeout, 503 when none is configured. One per downstream and protocol
 * ({@link DownstreamClients}: HTTP/1.1, HTTPS, HTTP/2 over TLS); closing it closes its JDK client.
 */
public final class DownstreamCalls implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DownstreamCalls.class);
    private static final MediaType FAILURE_TYPE = MediaType.parseMediaType("text/plain;charset=UTF-8");
    /**
     * Reactor Netty's default pool holds 2 connections per processor (at least 16) and queues
     * twice that many callers, failing the rest: the benchmark's 1,000 concurrent {@code /remote}
     * calls need a connection each, as the JDK client of the blocking route opens them. At most 1,024
     * per destination (as Spindle's client opens per loop): past that calls wait for one. An
     * unbounded pool let a cold start's burst over TLS open a connection per waiting call (2,000+
     * handshakes at once, none finishing), and the servlet requests piling up behind them exhausted
     * the 512 MiB heap of Spring MVC's row.
     */
    private static final int MAX_CONNECTIONS = 1024;

    private final RemoteDownstream downstream;
    private final WebClient webClient;
    private final HttpClient jdkClient;
    /**
     * HTTP/2 on the JDK's client: its clients, one connection each, and the streams each may carry
     * at once; null over HTTP/1.1. The JDK's client opens one HTTP/2 connection per destination and
     * fails a request beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS ("too many concurrent
     * streams", JDK-8225647) rather than waiting or opening another: the calls are spread over
     * {@code lanes}, each bounded by its permits, and wait for a stream when all are taken.
     */
    private final List<HttpClient> lanes;
    private final Semaphore[] lanePermits;
    /** All lanes' streams: a caller holding one of these finds a lane with a stream free. */
    private final Semaphore streams;
    /** The 503 body when no downstream is configured, naming the property to set. */
    private final String unconfiguredMessage;
    /**
     * A {@link RestClient}'s read timeout belongs to its request factory (there is no per-request
     * one), and the timeout depends on the delay asked: one client per delay (and lane), built on
     * first use, on the JDK {@code HttpClient} (at most {@code MAX_DELAY_MS + 1} of them per lane, one in a benchmark run).
     */
    private final Map<Long, RestClient> blockingClients = new ConcurrentHashMap<>();

    /**
     * @param downstream where the calls go, and how long they may take
     * @param webClient the asynchronous client, on Reactor Netty
     * @param jdkClient the JDK client under the blocking {@link RestClient}s
     */
    public DownstreamCalls(RemoteDownstream downstream, WebClient webClient, HttpClient jdkClient) {
        this(downstream, webClient, jdkClient, RemoteDownstream.unconfiguredMessage());
    }

    /**
     * @param downstream where the calls go, and how long they may take
     * @param webClient the asynchronous client, on Reactor Netty
     * @param jdkClient the JDK client under the blocking {@link RestClient}s
     * @param unconfiguredMessage the 503 body when {@code downstream} is not configured
     */
    public DownstreamCalls(RemoteDownstream downstream, WebClient webClient, HttpClient jdkClient, String unconfiguredMessage) {
        this.downstream = downstream;
        this.webClient = webClient;
        this.jdkClient = jdkClient;
        this.unconfiguredMessage = unconfiguredMessage;
        this.lanes = null;
        this.lanePermits = null;
        this.streams = null;
    }

    /**
     * Calls whose blocking side speaks HTTP/2 on the JDK's client, over {@code lanes} clients (one
     * connection each) carrying at most {@code streamsPerLane} calls at once each.
     *
     * @param downstream where the calls go, and how long they may take
     * @param webClient the asynchronous client, on Reactor Netty
     * @param lanes the JDK clients (HTTP/2) under the blocking {@link RestClient}s, at least one
     * @param streamsPerLane the streams each may carry at once (at most the downstream's SETTINGS_MAX_CONCURRENT_STREAMS)
     * @param unconfiguredMessage the 503 body when {@code downstream} is not configured
     */
    public DownstreamCalls(RemoteDownstream downstream, WebClient webClient, List<HttpClient> lanes, int streamsPerLane,
            String unconfiguredMessage) {
        this.downstream = downstream;
        this.webClient = webClient;
        this.jdkClient = lanes.getFirst();
        this.unconfiguredMessage = unconfiguredMessage;
        this.lanes = List.copyOf(lanes);
        this.lanePermits = new Semaphore[lanes.size()];
        for (int i = 0; i < lanePermits.length; i++) {
            lanePermits[i] = new Semaphore(streamsPerLane);
        }
        this.streams = new Semaphore(streamsPerLane * lanes.size(), true);
    }

    /** Closes the JDK clients (idempotent; the WebClient's loops and pool belong to the context's resource factory). */
    @Override
    public void close() {
        for (HttpClient c : lanes != null ? lanes : List.of(jdkClient)) {
            c.close();
        }
    }

    /** {@return the WebClient's connection pool: room for a connection per concurrent call, callers never refused} */
    public static ConnectionProvider connectionPool() {
        return ConnectionProvider.builder("spindle-downstream")
                .maxConnections(MAX_CONNECTIONS)
                .pendingAcquireMaxCount(-1)
                .build();
    }

    /**
     * Calls the downstream's {@code /delay/{delay}} with the {@link WebClient}; Reactor Netty's
     * per-request response timeout (a timer on the connection's event loop) bounds it.
     *
     * @param delay the delay to ask for
     * @return the answer, completed on an event loop
     */
    public Mono<ResponseEntity<byte[]>> callAsync(int delay) {
        if (!downstream.configured()) {
            return Mono.just(unconfigured());
        }
        return webClient.get().uri(downstream.delayUri(delay))
                .httpRequest(request -> request.<HttpClientRequest>getNativeRequest().responseTimeout(downstream.timeout(delay)))
                .retrieve()
                .toEntity(byte[].class)
                .map(DownstreamCalls::passThrough)
                .onErrorResume(e -> Mono.just(e.getCause() instanceof ReadTimeoutException ? timedOut(delay) : badGateway(e)));
    }

    /**
     * Calls the downstream's {@code /delay/{delay}} with a {@link RestClient}, holding the calling
     * thread until it answers or its read timeout passes.
     *
     * @param delay the delay to ask for
     * @return the answer
     */
    public ResponseEntity<byte[]> callBlocking(int delay) {
        if (!downstream.configured()) {
            return unconfigured();
        }
        if (lanes == null) {
            return callBlocking(delay, 0, jdkClient);
        }
        try {
            streams.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return badGateway(e);
        }
        try {
            // holding one of all the lanes' streams, some lane has one free
            for (int i = 0; ; i = (i + 1) % lanePermits.length) {
                if (lanePermits[i].tryAcquire()) {
                    try {
                        return callBlocking(delay, i, lanes.get(i));
                    } finally {
                        lanePermits[i].release();
                    }
                }
            }
        } finally {
            streams.release();
        }
    }

    private ResponseEntity<byte[]> callBlocking(int delay, int lane, HttpClient client) {
        try {
            return passThrough(blockingClients.computeIfAbsent((long) lane << 32 | delay, k -> restClient(client, delay))
                    .get().uri(downstream.delayUri(delay))
                    .retrieve()
                    .toEntity(byte[].class));
        } catch (ResourceAccessException e) {
            // a connect timeout is a HttpTimeoutException too, but no answer was ever coming: a bad gateway
            if (e.getCause() instanceof HttpTimeoutException && !(e.getCause() instanceof HttpConnectTimeoutException)) {
                return timedOut(delay);
            }
            return badGateway(e);
        } catch (RestClientException e) {
            return badGateway(e);
        }
    }

    private RestClient restClient(HttpClient client, int delay) {
        JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(client);
        requests.setReadTimeout(downstream.timeout(delay));
        return RestClient.builder().requestFactory(requests).build();
    }

    private static ResponseEntity<byte[]> passThrough(ResponseEntity<byte[]> answer) {
        if (answer.getStatusCode().value() != HttpStatus.OK.value()) {
            return failure(HttpStatus.BAD_GATEWAY, "downstream answered " + answer.getStatusCode().value());
        }
        MediaType type = answer.getHeaders().getContentType();
        byte[] body = answer.getBody();
        return ResponseEntity.ok()
                .contentType(type != null ? type : MediaType.APPLICATION_JSON)
                .body(body != null ? body : new byte[0]);
    }

    private static ResponseEntity<byte[]> badGateway(Throwable failure) {
        log.debug("downstream call failed", failure);
        return failure(HttpStatus.BAD_GATEWAY, "downstream call failed: " + failure.getMessage());
    }

    private ResponseEntity<byte[]> timedOut(int delay) {
        return failure(HttpStatus.GATEWAY_TIMEOUT,
                "downstream did not answer within " + downstream.timeout(delay).toMillis() + " ms");
    }

    private ResponseEntity<byte[]> unconfigured() {
        return failure(HttpStatus.SERVICE_UNAVAILABLE, unconfiguredMessage);
    }

    private static ResponseEntity<byte[]> failure(HttpStatus status, String message) {
        return ResponseEntity.status(status).contentType(FAILURE_TYPE).body(message.getBytes(StandardCharsets.UTF_8));
    }
}
