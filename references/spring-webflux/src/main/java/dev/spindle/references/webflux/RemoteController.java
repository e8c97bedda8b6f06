package dev.spindle.references.webflux;

import static dev.spindle.references.support.BenchmarkLimits.MAX_DELAY_MS;
import static org.springframework.web.bind.annotation.RequestMethod.GET;
import static org.springframework.web.bind.annotation.RequestMethod.HEAD;

import dev.spindle.references.support.RemoteDownstream;
import io.netty.handler.timeout.ReadTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.netty.http.client.HttpClientRequest;

/**
 * The remote routes: {@code /remote/{ms}} and {@code /remote-blocking/{ms}} call the downstream's
 * {@code /delay/{ms}} and answer its body and content type, as {@link RemoteDownstream} tabulates
 * (502 when it fails or answers other than 200, 504 past its timeout, 503 when none is configured).
 *
 * <p>{@code /remote} returns the {@link WebClient}'s {@code Mono}, completed on the event loops:
 * no thread waits while the downstream does. {@code /remote-blocking} is a plain
 * {@link RestClient} call on the JDK's client, which blocks its thread, so it runs on the same
 * offload scheduler as {@code /blocking} and never on an event loop.
 */
@RestController
class RemoteController {
    private static final Logger log = LoggerFactory.getLogger(RemoteController.class);
    private static final MediaType FAILURE_TYPE = MediaType.parseMediaType("text/plain;charset=UTF-8");

    private final RemoteDownstream downstream;
    private final WebClient webClient;
    private final HttpClient jdkClient;
    private final Scheduler blockingScheduler;
    /**
     * A {@link RestClient}'s read timeout belongs to its request factory (there is no per-request
     * one), and the timeout depends on the delay asked: one client per delay, built on first use,
     * all on the one JDK {@code HttpClient} (at most {@code MAX_DELAY_MS + 1} of them, one in a benchmark run).
     */
    private final Map<Integer, RestClient> blockingClients = new ConcurrentHashMap<>();

    RemoteController(RemoteDownstream downstream, WebClient downstreamWebClient, HttpClient downstreamJdkClient,
            Scheduler blockingScheduler) {
        this.downstream = downstream;
        this.webClient = downstreamWebClient;
        this.jdkClient = downstreamJdkClient;
        this.blockingScheduler = blockingScheduler;
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote/{ms}")
    Mono<ResponseEntity<byte[]>> remote(@PathVariable int ms) {
        int delay = BenchmarkController.capped(ms, MAX_DELAY_MS);
        if (!downstream.configured()) {
            return Mono.just(unconfigured());
        }
        return webClient.get().uri(downstream.delayUri(delay))
                // Reactor Netty's per-request response timeout: a timer on the connection's event loop
                .httpRequest(request -> request.<HttpClientRequest>getNativeRequest().responseTimeout(downstream.timeout(delay)))
                .retrieve()
                .toEntity(byte[].class)
                .map(RemoteController::passThrough)
                .onErrorResume(e -> Mono.just(e.getCause() instanceof ReadTimeoutException ? timedOut(delay) : badGateway(e)));
    }

    @RequestMapping(method = {GET, HEAD}, path = "/remote-blocking/{ms}")
    Mono<ResponseEntity<byte[]>> remoteBlocking(@PathVariable int ms) {
        int delay = BenchmarkController.capped(ms, MAX_DELAY_MS);
        if (!downstream.configured()) {
            return Mono.just(unconfigured());
        }
        return Mono.fromCallable(() -> callBlocking(delay)).subscribeOn(blockingScheduler);
    }

    private ResponseEntity<byte[]> callBlocking(int delay) {
        try {
            return passThrough(blockingClients.computeIfAbsent(delay, this::restClient)
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

    private RestClient restClient(int delay) {
        JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(jdkClient);
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

    private static ResponseEntity<byte[]> unconfigured() {
        return failure(HttpStatus.SERVICE_UNAVAILABLE, RemoteDownstream.unconfiguredMessage());
    }

    private static ResponseEntity<byte[]> failure(HttpStatus status, String message) {
        return ResponseEntity.status(status).contentType(FAILURE_TYPE).body(message.getBytes(StandardCharsets.UTF_8));
    }
}
