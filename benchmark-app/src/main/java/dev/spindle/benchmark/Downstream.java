// SPDX-License-Identifier: Apache-2.0
package dev.spindle.benchmark;

import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientException;
import dev.spindle.core.ClientResponse;
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
 * another server whose {@code GET /delay/{ms}} they call, its body answered as theirs. The calls go
 * through Spindle's own {@link Client} (on an event loop, through that loop's pool of keep-alive
 * connections; on a blocking handler's thread, over a blocking socket), or through the JDK's
 * {@link HttpClient} (HTTP/1.1) when {@value #CLIENT_PROPERTY} is {@code jdk}; an {@code https://}
 * downstream is called over TLS by either (Spindle's trusting {@code spindle.client.trustStore}
 * when it is set); the downstream of {@code /remote-h2/{ms}} ({@link #http2(String)}) is called over
 * HTTP/2 by either (Spindle's with {@link ClientConfig#http2(boolean)}, offering {@code h2} by
 * ALPN, the JDK's with {@link HttpClient.Version#HTTP_2}). One client per downstream, created
 * at the first call. Spindle's client reads the {@code spindle.client.*} properties
 * ({@link ClientConfig#fromSystemProperties()}); unless they say otherwise it opens up to
 * {@value #MAX_CONNECTIONS} connections per event loop (a connection per concurrent call, as the
 * load's concurrency needs) and connects within 5 s, as the JDK client does here.
 *
 * <table>
 *   <caption>Answers of the remote routes</caption>
 *   <tr><th>case</th><th>answer</th></tr>
 *   <tr><td>downstream answers 200</td><td>200 with its body and content type</td></tr>
 *   <tr><td>no downstream configured</td><td>503, the message naming {@value #PROPERTY}</td></tr>
 *   <tr><td>cannot connect, broken exchange, a non-200 answer (or too many calls waiting for a connection)</td><td>502</td></tr>
 *   <tr><td>no answer within {@code ms} plus the margin (default {@link #DEFAULT_MARGIN})</td><td>504</td></tr>
 * </table>
 */
public final class Downstream {
    /** The system property naming the downstream's base address, e.g. {@code http://127.0.0.1:8081}. */
    public static final String PROPERTY = "spindle.remote";
    /**
     * The system property naming the downstream of {@code /remote-tls/{ms}}, an {@code https://}
     * address, e.g. {@code https://127.0.0.1:8443}; Spindle's client trusts its certificate from
     * {@code spindle.client.trustStore}, the JDK's from {@code javax.net.ssl.trustStore}.
     */
    public static final String TLS_PROPERTY = "spindle.remoteTls";
    /** The system property choosing the client: {@code spindle} (the default) or {@code jdk}. */
    public static final String CLIENT_PROPERTY = "spindle.remote.client";
    /** Spindle's client: connections per event loop to the downstream, unless {@code spindle.client.maxConnections} says. */
    public static final int MAX_CONNECTIONS = 1024;
    /** How long a call may take beyond the {@code ms} it asks the downstream to wait. */
    public static final Duration DEFAULT_MARGIN = Duration.ofSeconds(5);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** The JDK's HTTP/2 clients of an http2 downstream: 10 x 100 streams hold the matrix's 1,000 concurrent calls. */
    static final int JDK_H2_LANES = 10;
    /** The streams each carries at once. */
    static final int JDK_H2_STREAMS = 100;
    private static final Logger log = LoggerFactory.getLogger(Downstream.class);

    /** {@code <base>/delay/}, or null when no downstream is configured. */
    private final String delayPrefix;
    /** The property the 503 names when no downstream is configured. */
    private final String property;
    private final Duration margin;
    private final boolean jdk;
    /** Whether the client speaks HTTP/2 to it ({@code h2} offered by ALPN). */
    private final boolean http2;
    /** Whether the protocol of the first answer was logged yet (at debug). */
    private volatile boolean versionLogged;
    private volatile HttpClient client;
    /** The JDK's client over HTTP/2: several, as one connection carries only the server's limit of streams. */
    private volatile JdkHttp2Lanes lanes;
    private volatile Client spindleClient;

    /**
     * A downstream at {@code base}.
     *
     * @param base the downstream's base address ({@code http://host:port}), or null for none:
     *        the routes then answer 503
     * @param margin how long a call may take beyond its {@code ms} before it is answered 504
     */
    public Downstream(URI base, Duration margin) {
        this(base, margin, "jdk".equals(System.getProperty(CLIENT_PROPERTY, "").trim()));
    }

    /**
     * A downstream at {@code base}, called with the client chosen.
     *
     * @param base the downstream's base address ({@code http://host:port}), or null for none:
     *        the routes then answer 503
     * @param margin how long a call may take beyond its {@code ms} before it is answered 504
     * @param jdkClient true to call it with the JDK's {@link HttpClient}, false for Spindle's
     *        {@link Client}
     */
    public Downstream(URI base, Duration margin, boolean jdkClient) {
        this(base, margin, jdkClient, PROPERTY, false);
    }

    private Downstream(URI base, Duration margin, boolean jdkClient, String property, boolean http2) {
        if (base != null && !"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
            throw new IllegalArgumentException("downstream must be an http or https address: " + base);
        }
        String b = base == null ? null : base.toString();
        this.delayPrefix = b == null ? null : (b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + "/delay/";
        this.margin = margin;
        this.jdk = jdkClient;
        this.property = property;
        this.http2 = http2;
    }

    /**
     * The downstream named by {@value #PROPERTY}, or none if it is unset or blank.
     *
     * @return the configured downstream, with the default margin
     * @throws IllegalArgumentException if the property is not an http(s) address
     */
    public static Downstream fromSystemProperties() {
        return fromSystemProperties(PROPERTY);
    }

    /**
     * The downstream named by {@code property}, or none if it is unset or blank.
     *
     * @param property {@value #PROPERTY}, or {@value #TLS_PROPERTY} for {@code /remote-tls/{ms}}'s
     * @return the configured downstream, with the default margin
     * @throws IllegalArgumentException if the property is not an http(s) address
     */
    public static Downstream fromSystemProperties(String property) {
        String raw = System.getProperty(property);
        return fromSystemProperties(property, false);
    }

    /**
     * The downstream named by {@code property}, called over HTTP/2: the {@code /remote-h2/{ms}}
     * route's. Spindle's client offers {@code h2} by ALPN ({@link ClientConfig#http2(boolean)}; one
     * connection carries as many calls at once as the server allows, and
     * {@code maxConnectionsPerDestination} still bounds the connections), the JDK's asks for
     * {@link HttpClient.Version#HTTP_2}; both fall back to HTTP/1.1 where the server does not choose h2.
     *
     * @param property the property naming its base address ({@value #TLS_PROPERTY} in the matrix)
     * @return the configured downstream, or none if the property is unset or blank
     * @throws IllegalArgumentException if the property is not an http(s) address
     */
    public static Downstream http2(String property) {
        return fromSystemProperties(property, true);
    }

    private static Downstream fromSystemProperties(String property, boolean http2) {
        String raw = System.getProperty(property);
        return new Downstream(raw == null || raw.isBlank() ? null : URI.create(raw.trim()), DEFAULT_MARGIN,
                "jdk".equals(System.getProperty(CLIENT_PROPERTY, "").trim()), property, http2);
    }

    /** {@return whether the calls go over HTTP/2} */
    public boolean http2() {
        return http2;
    }

    /**
     * Calls the downstream's {@code /delay/{ms}} without holding a thread while it answers.
     *
     * @param ms the delay to ask for
     * @param res filled in with the downstream's answer
     * @return a stage completing once {@code res} is final, or failing with an {@link HttpException}
     */
    CompletableFuture<Void> fetchAsync(int ms, Response res) {
        if (!jdk) {
            String uri = uri(ms);
            return spindleClient().get(uri).responseTimeout(margin.plusMillis(ms)).send()
                    .<Void>handle((answer, failure) -> {
                        if (failure != null) {
                            throw failed(uri, failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
                        }
                        answer(answer, res);
                        return null;
                    }).toCompletableFuture();
        }
        HttpRequest request = request(ms);
        return (http2 ? lanes().sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                : client().sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()))
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
        if (!jdk) {
            String uri = uri(ms);
            ClientResponse answer;
            try {
                answer = spindleClient().get(uri).responseTimeout(margin.plusMillis(ms)).call();
            } catch (ClientException e) {
                throw failed(uri, e);
            }
            answer(answer, res);
            return;
        }
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
        return HttpRequest.newBuilder(URI.create(uri(ms))).timeout(margin.plusMillis(ms)).GET().build();
    }

    private String uri(int ms) {
        if (delayPrefix == null) {
            throw new HttpException(503, "no downstream configured: start the server with -D" + property
                    + (TLS_PROPERTY.equals(property) ? "=https://host:port" : "=http://host:port"));
        }
        return delayPrefix + ms;
    }

    private void answer(ClientResponse answer, Response res) {
        if (!versionLogged && log.isDebugEnabled()) {
            versionLogged = true;
            log.debug("downstream {} answered over {} (Spindle's client)", delayPrefix, answer.version());
        }
        if (answer.status() != 200) {
            throw new HttpException(502, "downstream answered " + answer.status());
        }
        String type = answer.header("content-type");
        res.contentType(type != null ? type : Response.APPLICATION_JSON).body(answer.bodyBytes());
    }

    private static HttpException failed(String uri, Throwable failure) {
        if (failure instanceof HttpException e) {
            return e;
        }
        log.debug("downstream call {} failed", uri, failure);
        if (failure instanceof ClientException e && e.reason() == ClientException.Reason.RESPONSE_TIMEOUT) {
            return new HttpException(504, "downstream did not answer in time: " + e.getMessage());
        }
        return new HttpException(502, "downstream call failed: " + failure);
    }

    private void answer(HttpResponse<byte[]> answer, Response res) {
        if (!versionLogged && log.isDebugEnabled()) {
            versionLogged = true;
            log.debug("downstream {} answered over {} (the JDK's client)", delayPrefix, answer.version());
        }
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

    private Client spindleClient() {
        Client c = spindleClient;
        if (c == null) {
            synchronized (this) {
                c = spindleClient;
                if (c == null) {
                    ClientConfig defaults = ClientConfig.defaults();
                    ClientConfig config = ClientConfig.fromSystemProperties();
                    if (config.connectTimeout().equals(defaults.connectTimeout())) {
                        config = config.connectTimeout(CONNECT_TIMEOUT);
                    }
                    if (config.maxConnectionsPerDestination() == defaults.maxConnectionsPerDestination()) {
                        config = config.maxConnectionsPerDestination(MAX_CONNECTIONS);
                    }
                    if (http2) {
                        config = config.http2(true);
                    }
                    c = Client.create(config);
                    spindleClient = c;
                }
            }
        }
        return c;
    }

    /**
     * The JDK's HTTP/2 clients: {@value #JDK_H2_LANES} of them (a connection each), each carrying at most
     * {@value #JDK_H2_STREAMS} calls at once (within the 128 streams a Spindle downstream allows), as the
     * JDK's client fails the calls beyond a connection's limit (JDK-8225647) rather than open another.
     */
    private JdkHttp2Lanes lanes() {
        JdkHttp2Lanes l = lanes;
        if (l == null) {
            synchronized (this) {
                l = lanes;
                if (l == null) {
                    l = new JdkHttp2Lanes(JDK_H2_LANES, JDK_H2_STREAMS, Downstream::newJdkClient);
                    lanes = l;
                }
            }
        }
        return l;
    }

    private HttpClient client() {
        HttpClient c = client;
        if (c == null) {
            synchronized (this) {
                c = client;
                if (c == null) {
                    c = http2 ? newJdkClient() : HttpClient.newBuilder()
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

    /** A JDK client asking for HTTP/2 (h2 by ALPN over TLS); virtual threads run its completions, so a burst of answers starts no platform threads. */
    private static HttpClient newJdkClient() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_2)
                .connectTimeout(CONNECT_TIMEOUT)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }
}
