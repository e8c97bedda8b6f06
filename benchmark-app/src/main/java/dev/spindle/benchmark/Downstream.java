package dev.spindle.benchmark;

import dev.spindle.core.HttpException;
import dev.spindle.core.Response;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The downstream HTTP service of the {@code /remote/{ms}} and {@code /remote-blocking/{ms}} routes:
 * another server whose {@code GET /delay/{ms}} they call, its body answered as theirs. One
 * {@link HttpClient} (HTTP/1.1) per downstream, created at the first call.
 *
 * <table>
 *   <caption>Answers of the remote routes</caption>
 *   <tr><th>case</th><th>answer</th></tr>
 *   <tr><td>downstream answers 200</td><td>200 with its body and content type</td></tr>
 *   <tr><td>no downstream configured</td><td>503, the message naming {@value #PROPERTY}</td></tr>
 *   <tr><td>cannot connect, broken exchange, or a non-200 answer</td><td>502</td></tr>
 *   <tr><td>no answer within {@code ms} plus the margin (default {@link #DEFAULT_MARGIN})</td><td>504</td></tr>
 * </table>
 */
public final class Downstream {
    /** The system property naming the downstream's base address, e.g. {@code http://127.0.0.1:8081}. */
    public static final String PROPERTY = "spindle.remote";
    /** How long a call may take beyond the {@code ms} it asks the downstream to wait. */
    public static final Duration DEFAULT_MARGIN = Duration.ofSeconds(5);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger(Downstream.class);

    /** {@code <base>/delay/}, or null when no downstream is configured. */
    private final String delayPrefix;
    private final Duration margin;
    private volatile HttpClient client;

    /**
     * A downstream at {@code base}.
     *
     * @param base the downstream's base address ({@code http://host:port}), or null for none:
     *        the routes then answer 503
     * @param margin how long a call may take beyond its {@code ms} before it is answered 504
     */
    public Downstream(URI base, Duration margin) {
        if (base != null && !"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
            throw new IllegalArgumentException("downstream must be an http or https address: " + base);
        }
        String b = base == null ? null : base.toString();
        this.delayPrefix = b == null ? null : (b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + "/delay/";
        this.margin = margin;
    }

    /**
     * The downstream named by {@value #PROPERTY}, or none if it is unset or blank.
     *
     * @return the configured downstream, with the default margin
     * @throws IllegalArgumentException if the property is not an http(s) address
     */
    public static Downstream fromSystemProperties() {
        String raw = System.getProperty(PROPERTY);
        return new Downstream(raw == null || raw.isBlank() ? null : URI.create(raw.trim()), DEFAULT_MARGIN);
    }

    /**
     * Calls the downstream's {@code /delay/{ms}} without holding a thread while it answers.
     *
     * @param ms the delay to ask for
     * @param res filled in with the downstream's answer
     * @return a stage completing once {@code res} is final, or failing with an {@link HttpException}
     */
    CompletableFuture<Void> fetchAsync(int ms, Response res) {
        HttpRequest request = request(ms);
        return client().sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .handle((answer, failure) -> {
                    if (failure != null) {
                        throw failed(request, failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
                    }
                    answer(answer, res);
                    return null;
                });
    }

    /**
     * Calls the downstream's {@code /delay/{ms}}, blocking the calling thread until it answers.
     *
     * @param ms the delay to ask for
     * @param res filled in with the downstream's answer
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void fetch(int ms, Response res) throws InterruptedException {
        HttpRequest request = request(ms);
        HttpResponse<byte[]> answer;
        try {
            answer = client().send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw failed(request, e);
        }
        answer(answer, res);
    }

    private HttpRequest request(int ms) {
        if (delayPrefix == null) {
            throw new HttpException(503, "no downstream configured: start the server with -D" + PROPERTY + "=http://host:port");
        }
        return HttpRequest.newBuilder(URI.create(delayPrefix + ms)).timeout(margin.plusMillis(ms)).GET().build();
    }

    private static void answer(HttpResponse<byte[]> answer, Response res) {
        if (answer.statusCode() != 200) {
            throw new HttpException(502, "downstream answered " + answer.statusCode());
        }
        res.contentType(answer.headers().firstValue("content-type").orElse(Response.APPLICATION_JSON)).body(answer.body());
    }

    private static HttpException failed(HttpRequest request, Throwable failure) {
        if (failure instanceof HttpException e) {
            return e;
        }
        // HttpConnectTimeoutException is a HttpTimeoutException too, but no answer was ever coming: a bad gateway
        boolean timedOut = failure instanceof HttpTimeoutException && !(failure instanceof java.net.http.HttpConnectTimeoutException);
        log.debug("downstream call {} failed", request.uri(), failure);
        return timedOut
                ? new HttpException(504, "downstream did not answer within " + request.timeout().map(Duration::toMillis).orElse(0L) + " ms")
                : new HttpException(502, "downstream call failed: " + failure);
    }

    private HttpClient client() {
        HttpClient c = client;
        if (c == null) {
            synchronized (this) {
                c = client;
                if (c == null) {
                    // virtual threads run the client's completions: a burst of answers starts no platform threads
                    c = HttpClient.newBuilder()
                            .version(HttpClient.Version.HTTP_1_1)
                            .connectTimeout(CONNECT_TIMEOUT)
                            .executor(Executors.newVirtualThreadPerTaskExecutor())
                            .build();
                    client = c;
                }
            }
        }
        return c;
    }
}
