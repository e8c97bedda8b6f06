// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.client.ClientSettings;
import dev.spindle.core.spi.SystemProperty;
import dev.spindle.core.client.ClientTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What a {@link Client} is told: timeouts, pool sizes and limits. Immutable; each setter-like
 * method returns a changed copy: {@code ClientConfig.defaults().responseTimeout(Duration.ofSeconds(5))}.
 *
 * <table>
 *   <caption>Settings, their system properties (read by {@link #fromSystemProperties()}) and defaults</caption>
 *   <tr><th>setting</th><th>property</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>connectTimeout</td><td>spindle.client.connectTimeoutMs</td><td>10 s</td><td>a connection not open within it fails its requests with {@link ClientException.Reason#CONNECT_TIMEOUT}; 0 for none</td></tr>
 *   <tr><td>responseTimeout</td><td>spindle.client.responseTimeoutMs</td><td>30 s</td><td>a response not complete within it (from the request being written) fails with {@link ClientException.Reason#RESPONSE_TIMEOUT} and closes its connection; 0 for none</td></tr>
 *   <tr><td>totalTimeout</td><td>spindle.client.totalTimeoutMs</td><td>none</td><td>a call without its response (its head, if streamed) this long after it was made fails with {@link ClientException.Reason#TOTAL_TIMEOUT}, wherever it is: waiting for a connection, connecting, sent, redirected or retried; 0 for none</td></tr>
 *   <tr><td>idleTimeout</td><td>spindle.client.idleTimeoutMs</td><td>30 s</td><td>a keep-alive connection with no request for this long is closed (below the 60 s servers usually keep one, so the client closes first); 0 for none</td></tr>
 *   <tr><td>maxConnectionsPerDestination</td><td>spindle.client.maxConnections</td><td>64</td><td>connections open or opening to one destination ({@code host:port}) from one event loop; off a loop, the idle connections kept per destination</td></tr>
 *   <tr><td>maxWaitingRequests</td><td>spindle.client.maxWaiting</td><td>1024</td><td>requests of one event loop that wait for a connection to a destination while all are busy; one more fails with {@link ClientException.Reason#POOL_FULL}</td></tr>
 *   <tr><td>maxPipelined</td><td>spindle.client.maxPipelined</td><td>1</td><td>requests written on a connection before the first is answered (1: no pipelining)</td></tr>
 *   <tr><td>followRedirects</td><td>spindle.client.followRedirects</td><td>0</td><td>redirects (301, 302, 303, 307, 308 with a {@code Location}) followed per request before its last answer is returned as it is; 0 follows none</td></tr>
 *   <tr><td>decompression</td><td>spindle.client.decompression</td><td>false</td><td>requests offer {@code Accept-Encoding: gzip} (unless they name their own) and buffered gzip responses are handed over decoded</td></tr>
 *   <tr><td>http2</td><td>spindle.client.http2</td><td>false</td><td>{@code https:} connections offer HTTP/2 by ALPN ({@code h2}, then {@code http/1.1}) and speak it when the server chooses it</td></tr>
 *   <tr><td>h2cPriorKnowledge</td><td>spindle.client.h2c</td><td>false</td><td>{@code http:} connections speak HTTP/2 from their first byte (RFC 9113 3.3): only for servers known to</td></tr>
 *   <tr><td>trustStore</td><td>spindle.client.trustStore, spindle.client.trustStorePassword</td><td>the JDK's</td><td>a key store file whose certificates are trusted instead of the JDK's ({@link #trustStore})</td></tr>
 *   <tr><td>maxResponseBodySize</td><td>spindle.client.maxResponseBodySize</td><td>8 MiB</td><td>largest response body buffered; a larger one fails with {@link ClientException.Reason#BODY_TOO_LARGE}</td></tr>
 * </table>
 *
 * <p>Beside the table, {@link #interceptor(ClientInterceptor)} adds code that sees every request
 * before it is sent (none by default), and TLS for {@code https:} addresses is the JDK's unless
 * told otherwise: the JDK's trusted certificates ({@code cacerts}) judge servers, a server's
 * certificate must name the host the address gave, and no client certificate is presented.
 * {@link #trustStore} trusts the certificates of a key store file instead, {@link #keyStore}
 * presents its key and certificate when a server asks for one (mutual TLS),
 * {@link #tls(SSLContext)} takes a context the application built, and
 * {@link #hostnameVerification(boolean)} turns the host check off (for tests only).
 *
 * <p>Every setter checks its value and leaves this configuration unchanged: a value outside the
 * range its {@code @param} gives throws {@link IllegalArgumentException}, a null one
 * {@link NullPointerException}.
 */
public final class ClientConfig {
    private static final ClientSettings ENGINE_DEFAULTS = ClientSettings.defaults();
    private static final ClientInterceptor[] NO_INTERCEPTORS = {};

    private Duration connectTimeout = ENGINE_DEFAULTS.connectTimeout();
    private Duration responseTimeout = ENGINE_DEFAULTS.responseTimeout();
    private Duration idleTimeout = ENGINE_DEFAULTS.idleTimeout();
    private Duration totalTimeout = Duration.ZERO;
    private int maxConnectionsPerDestination = 64;
    private int maxWaitingRequests = 1024;
    private int maxPipelined = ENGINE_DEFAULTS.maxPipelined();
    private int followRedirects;
    private boolean decompression;
    private boolean http2;
    private boolean h2cPriorKnowledge;
    /** {@code host:port} of an HTTP proxy every connection tunnels through, or null. */
    private String proxy;
    private long maxResponseBodySize = ENGINE_DEFAULTS.maxBodySize();
    private ClientInterceptor[] interceptors = NO_INTERCEPTORS;
    private SSLContext tlsContext;
    private KeyStore trustStore;
    private KeyStore keyStore;
    private char[] keyPassword;
    private boolean hostnameVerification = true;

    private ClientConfig() {
    }

    /**
     * Every setting at its default (the table above); system properties are not read.
     *
     * @return a new configuration with the defaults
     */
    public static ClientConfig defaults() {
        return new ClientConfig();
    }

    /**
     * Defaults overridden by any {@code spindle.client.*} system property in the table above. A
     * blank property counts as unset; durations are whole milliseconds.
     *
     * @return the configuration the properties describe
     * @throws IllegalArgumentException if a property does not parse or is out of range (the message
     *         names the property)
     */
    public static ClientConfig fromSystemProperties() {
        ClientConfig c = defaults();
        c.connectTimeout = prop("spindle.client.connectTimeoutMs", c.connectTimeout, ClientConfig::millis);
        c.responseTimeout = prop("spindle.client.responseTimeoutMs", c.responseTimeout, ClientConfig::millis);
        c.idleTimeout = prop("spindle.client.idleTimeoutMs", c.idleTimeout, ClientConfig::millis);
        c.totalTimeout = prop("spindle.client.totalTimeoutMs", c.totalTimeout, ClientConfig::millis);
        c.maxConnectionsPerDestination = prop("spindle.client.maxConnections", c.maxConnectionsPerDestination, Integer::parseInt);
        c.maxWaitingRequests = prop("spindle.client.maxWaiting", c.maxWaitingRequests, Integer::parseInt);
        c.maxPipelined = prop("spindle.client.maxPipelined", c.maxPipelined, Integer::parseInt);
        c.followRedirects = prop("spindle.client.followRedirects", c.followRedirects, Integer::parseInt);
        c.decompression = prop("spindle.client.decompression", c.decompression, ClientConfig::bool);
        c.http2 = prop("spindle.client.http2", c.http2, ClientConfig::bool);
        c.h2cPriorKnowledge = prop("spindle.client.h2c", c.h2cPriorKnowledge, ClientConfig::bool);
        char[] trustPassword = prop("spindle.client.trustStorePassword", "", value -> value).toCharArray();
        c.trustStore = prop("spindle.client.trustStore", null, value -> load(Path.of(value), trustPassword));
        c.maxResponseBodySize = prop("spindle.client.maxResponseBodySize", c.maxResponseBodySize, Long::parseLong);
        return c.validated();
    }

    private static boolean bool(String value) {
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("not true or false: " + value);
        }
        return Boolean.parseBoolean(value);
    }

    private static Duration millis(String value) {
        return Duration.ofMillis(Long.parseLong(value));
    }

    private static <T> T prop(String name, T fallback, Function<String, T> parse) {
        return SystemProperty.read(name, fallback, parse);
    }

    /**
     * How long a new connection may take to open.
     *
     * @param d zero or positive; zero for no limit but the operating system's
     * @return a copy with this timeout
     */
    public ClientConfig connectTimeout(Duration d) { return with(c -> c.connectTimeout = Objects.requireNonNull(d, "connectTimeout")); }

    /** {@return how long a new connection may take to open; zero for no limit} */
    public Duration connectTimeout() { return connectTimeout; }

    /**
     * How long a response may take, from its request being written to its last byte.
     *
     * @param d zero or positive; zero for no limit
     * @return a copy with this timeout
     */
    public ClientConfig responseTimeout(Duration d) { return with(c -> c.responseTimeout = Objects.requireNonNull(d, "responseTimeout")); }

    /** {@return how long a response may take; zero for no limit} */
    public Duration responseTimeout() { return responseTimeout; }

    /**
     * How long a whole call may take, from {@code send()} or {@code call()} to its response (to
     * its head, for a streamed one): waiting for a connection, connecting, TLS, sending, redirects
     * and retries included (none by default). Past it the call fails with
     * {@link ClientException.Reason#TOTAL_TIMEOUT} and lets go of what it held: it leaves a pool's
     * queue, its HTTP/2 stream is reset, its HTTP/1.1 connection is closed. A call may set its own
     * ({@code RequestBuilder.totalTimeout}).
     *
     * @param d zero or positive; zero for none
     * @return a copy with this timeout
     */
    public ClientConfig totalTimeout(Duration d) { return with(c -> c.totalTimeout = Objects.requireNonNull(d, "totalTimeout")); }

    /** {@return how long a whole call may take; zero for no limit} */
    public Duration totalTimeout() { return totalTimeout; }

    /**
     * How long a keep-alive connection stays open without a request.
     *
     * @param d zero or positive; zero to keep it until the server closes it
     * @return a copy with this timeout
     */
    public ClientConfig idleTimeout(Duration d) { return with(c -> c.idleTimeout = Objects.requireNonNull(d, "idleTimeout")); }

    /** {@return how long a keep-alive connection stays open without a request; zero for no limit} */
    public Duration idleTimeout() { return idleTimeout; }

    /**
     * The most connections open or opening to one destination from one event loop (each loop has
     * its own pool); off a loop, the most HTTP/1.1 connections to one destination in use at once
     * across all threads (calls past them wait their turn, see {@link #maxWaitingRequests(int)}),
     * and the most kept idle.
     *
     * @param count at least 1; default 64
     * @return a copy with this limit
     */
    public ClientConfig maxConnectionsPerDestination(int count) { return with(c -> c.maxConnectionsPerDestination = count); }

    /** {@return the most connections to one destination from one event loop, or in use at once off the loops} */
    public int maxConnectionsPerDestination() { return maxConnectionsPerDestination; }

    /**
     * The most requests of one event loop that wait for a busy destination's connection (off the
     * loops: the most calls waiting for one across all threads, each no longer than its total
     * timeout); one more fails with {@link ClientException.Reason#POOL_FULL}.
     *
     * @param count zero or more; default 1024
     * @return a copy with this limit
     */
    public ClientConfig maxWaitingRequests(int count) { return with(c -> c.maxWaitingRequests = count); }

    /** {@return the most requests of one event loop waiting for a destination's connection} */
    public int maxWaitingRequests() { return maxWaitingRequests; }

    /**
     * How many requests a connection may carry before the first is answered (HTTP/1.1 pipelining);
     * none is pipelined behind a non-idempotent request.
     *
     * @param count at least 1; default 1 (no pipelining)
     * @return a copy with this depth
     */
    public ClientConfig maxPipelined(int count) { return with(c -> c.maxPipelined = count); }

    /**
     * How many redirects a request follows (off, 0, by default). A 301, 302, 303, 307 or 308 with a
     * {@code Location} is followed to that address (resolved against the request's): a 303, and a
     * 301 or 302 answering a {@code POST}, as a {@code GET} without body, the others with the same
     * method and body, unless the body was streamed (it cannot be sent twice: the redirect is the
     * answer). From {@code https:} to {@code http:} nothing is followed, and the caller's
     * {@code Authorization}, {@code Cookie} and {@code Proxy-Authorization} fields do not go to
     * another origin. Past the limit, or when not followed, the redirect itself is the response.
     *
     * @param max at least 0
     * @return a copy with this limit
     */
    public ClientConfig followRedirects(int max) { return with(c -> c.followRedirects = max); }

    /** {@return how many redirects a request follows} */
    public int followRedirects() { return followRedirects; }

    /**
     * Whether requests offer gzip ({@code Accept-Encoding: gzip}, unless a request names what it
     * accepts itself) and a buffered response in gzip is handed over decoded, without its
     * {@code Content-Encoding} and {@code Content-Length} (off by default). The decoded body is
     * bounded by {@link #maxResponseBodySize()} too ({@link ClientException.Reason#BODY_TOO_LARGE}
     * past it: no decompression bomb gets through), and bytes that are no gzip fail it with
     * {@link ClientException.Reason#MALFORMED_RESPONSE}. A streamed response comes as it was sent.
     *
     * @param on whether to decode
     * @return a copy with decompression on or off
     */
    public ClientConfig decompression(boolean on) { return with(c -> c.decompression = on); }

    /** {@return whether gzip is offered and decoded} */
    public boolean decompression() { return decompression; }

    /**
     * Whether {@code https:} connections offer HTTP/2 by ALPN (RFC 9113 3.2; off by default): the
     * server chooses, and a connection where it chose {@code h2} carries up to as many requests at
     * once as the server allows ({@code SETTINGS_MAX_CONCURRENT_STREAMS}), one per stream, with
     * flow control both ways; one where it chose HTTP/1.1, or that offers no ALPN, is HTTP/1.1 as
     * before. On an event loop the loop's pool multiplexes; off the loops ({@link Client#call}, a
     * {@code send} from another thread) a few connections per destination are shared by every thread.
     *
     * @param on whether to offer HTTP/2
     * @return a copy with HTTP/2 offered or not
     */
    public ClientConfig http2(boolean on) { return with(c -> c.http2 = on); }

    /** {@return whether {@code https:} connections offer HTTP/2} */
    public boolean http2() { return http2; }

    /**
     * Whether {@code http:} connections speak HTTP/2 from their first byte, without asking (h2c
     * with prior knowledge, RFC 9113 3.3; off by default): for downstreams known to speak it, as a
     * service mesh's sidecar or a gRPC-style backend does. A server that does not fails the
     * requests (the connection closes, or answers with bytes that are no HTTP/2 frames:
     * {@link ClientException.Reason#MALFORMED_RESPONSE}).
     *
     * @param on whether to speak h2c
     * @return a copy with h2c on or off
     */
    public ClientConfig h2cPriorKnowledge(boolean on) { return with(c -> c.h2cPriorKnowledge = on); }

    /** {@return whether {@code http:} connections speak HTTP/2 by prior knowledge} */
    public boolean h2cPriorKnowledge() { return h2cPriorKnowledge; }

    /**
     * An HTTP proxy every connection goes through: the socket connects to the proxy, which is
     * asked to open a tunnel to the destination ({@code CONNECT host:port}, RFC 9110 9.3.6); TLS
     * for an {@code https:} address runs inside the tunnel, end to end, checked as without a proxy.
     * A proxy that refuses (its status line is in the message) or cannot be reached fails the
     * request with {@link ClientException.Reason#CONNECT_FAILED}. WebSockets do not go through it.
     *
     * @param host the proxy's host name or IP literal
     * @param port its port, 1 to 65535
     * @return a copy that tunnels through it
     */
    public ClientConfig proxy(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw new IllegalArgumentException("not a proxy address: " + host + ":" + port);
        }
        String authority = (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
        return with(c -> c.proxy = authority);
    }

    /** {@return the proxy's {@code host:port}, or null when connections go straight to their destination} */
    public String proxy() { return proxy; }

    /** {@return how many requests a connection may carry before the first is answered} */
    public int maxPipelined() { return maxPipelined; }

    /**
     * The largest response body the client buffers.
     *
     * @param bytes 0 to {@code Integer.MAX_VALUE - 16}; default 8 MiB
     * @return a copy with this limit
     */
    public ClientConfig maxResponseBodySize(long bytes) { return with(c -> c.maxResponseBodySize = bytes); }

    /** {@return the largest response body the client buffers, in bytes} */
    public long maxResponseBodySize() { return maxResponseBodySize; }

    /**
     * Adds an interceptor, which sees every request before it is sent and may add header fields
     * to it ({@link ClientInterceptor}); interceptors run in the order they were added.
     *
     * @param interceptor the interceptor, not null
     * @return a copy with this interceptor after those already added
     */
    public ClientConfig interceptor(ClientInterceptor interceptor) {
        Objects.requireNonNull(interceptor, "interceptor");
        return with(c -> {
            c.interceptors = Arrays.copyOf(interceptors, interceptors.length + 1);
            c.interceptors[interceptors.length] = interceptor;
        });
    }

    /** {@return the interceptors, in the order they run; empty when there are none} */
    public List<ClientInterceptor> interceptors() { return List.of(interceptors); }

    /**
     * TLS with a context the application built: its trust managers judge servers, its key managers
     * present a client certificate. Replaces {@link #trustStore} and {@link #keyStore}.
     *
     * @param context an initialised context
     * @return a copy with this context
     */
    public ClientConfig tls(SSLContext context) {
        Objects.requireNonNull(context, "context");
        return with(c -> {
            c.tlsContext = context;
            c.trustStore = null;
            c.keyStore = null;
            c.keyPassword = null;
        });
    }

    /**
     * Trusts the certificates in a key store file (PKCS#12 or JKS, recognised by its content),
     * such as a private CA's or a test server's self-signed one, instead of the JDK's.
     *
     * @param file the key store file, read now
     * @param password its password
     * @return a copy that trusts them
     * @throws IllegalArgumentException if the file cannot be read or is not a key store, or the
     *         password is wrong (the message names the file)
     */
    public ClientConfig trustStore(Path file, char[] password) {
        KeyStore store = load(file, password);
        return with(c -> {
            c.tlsContext = null;
            c.trustStore = store;
        });
    }

    /**
     * Presents the key and certificate chain in a key store file when a server asks for a client
     * certificate (mutual TLS). The key password must be the store password, as {@code keytool}
     * makes it for PKCS#12.
     *
     * @param file the key store file, read now
     * @param password its password
     * @return a copy that presents it
     * @throws IllegalArgumentException as {@link #trustStore}
     */
    public ClientConfig keyStore(Path file, char[] password) {
        KeyStore store = load(file, password);
        char[] copy = password.clone();
        return with(c -> {
            c.tlsContext = null;
            c.keyStore = store;
            c.keyPassword = copy;
        });
    }

    /**
     * Whether a server's certificate must name the host the address gave (on by default). Off,
     * any trusted certificate is taken for any host: only for tests.
     *
     * @param on whether to check
     * @return a copy with the check on or off
     */
    public ClientConfig hostnameVerification(boolean on) { return with(c -> c.hostnameVerification = on); }

    /** {@return whether a server's certificate must name the host} */
    public boolean hostnameVerification() { return hostnameVerification; }

    private static KeyStore load(Path file, char[] password) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(password, "password");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no key store file at " + file);
        }
        try {
            return KeyStore.getInstance(file.toFile(), password);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use key store " + file + ": " + e.getMessage(), e);
        }
    }

    /** How the client speaks TLS: the context made from the stores, or the JDK's default. */
    ClientTls clientTls() {
        try {
            SSLContext context = tlsContext;
            if (context == null && trustStore == null && keyStore == null) {
                context = SSLContext.getDefault();
            } else if (context == null) {
                TrustManagerFactory trust = null;
                if (trustStore != null) {
                    trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                    trust.init(trustStore);
                }
                KeyManagerFactory keys = null;
                if (keyStore != null) {
                    keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                    keys.init(keyStore, keyPassword);
                }
                context = SSLContext.getInstance("TLS");
                context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(), null);
            }
            return new ClientTls(context, hostnameVerification);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** The interceptors, not copied: the client reads them per request. */
    ClientInterceptor[] interceptorArray() {
        return interceptors;
    }

    /** The settings of each connection. */
    ClientSettings settings() {
        return ENGINE_DEFAULTS.connectTimeout(connectTimeout).responseTimeout(responseTimeout).idleTimeout(idleTimeout)
                .maxPipelined(maxPipelined).maxBodySize(maxResponseBodySize);
    }

    private ClientConfig copy() {
        ClientConfig c = new ClientConfig();
        c.connectTimeout = connectTimeout;
        c.responseTimeout = responseTimeout;
        c.idleTimeout = idleTimeout;
        c.totalTimeout = totalTimeout;
        c.maxConnectionsPerDestination = maxConnectionsPerDestination;
        c.maxWaitingRequests = maxWaitingRequests;
        c.maxPipelined = maxPipelined;
        c.followRedirects = followRedirects;
        c.proxy = proxy;
        c.decompression = decompression;
        c.http2 = http2;
        c.h2cPriorKnowledge = h2cPriorKnowledge;
        c.maxResponseBodySize = maxResponseBodySize;
        c.interceptors = interceptors;
        c.tlsContext = tlsContext;
        c.trustStore = trustStore;
        c.keyStore = keyStore;
        c.keyPassword = keyPassword;
        c.hostnameVerification = hostnameVerification;
        return c;
    }

    private ClientConfig validated() {
        for (Duration d : new Duration[] {connectTimeout, responseTimeout, idleTimeout, totalTimeout}) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("timeouts must not be negative, got " + d);
            }
        }
        if (maxConnectionsPerDestination < 1) {
            throw new IllegalArgumentException("maxConnectionsPerDestination must be positive, got " + maxConnectionsPerDestination);
        }
        if (maxWaitingRequests < 0) {
            throw new IllegalArgumentException("maxWaitingRequests must not be negative, got " + maxWaitingRequests);
        }
        if (followRedirects < 0) {
            throw new IllegalArgumentException("followRedirects must not be negative, got " + followRedirects);
        }
        if (maxPipelined < 1) {
            throw new IllegalArgumentException("maxPipelined must be positive, got " + maxPipelined);
        }
        if (maxResponseBodySize < 0 || maxResponseBodySize > ClientSettings.MAX_BODY_SIZE) {
            throw new IllegalArgumentException("maxResponseBodySize must be 0.." + ClientSettings.MAX_BODY_SIZE + ", got " + maxResponseBodySize);
        }
        return this;
    }

    private ClientConfig with(Consumer<ClientConfig> change) {
        ClientConfig c = copy();
        change.accept(c);
        return c.validated();
    }

    @Override
    public String toString() {
        return "ClientConfig[connectTimeout=" + connectTimeout + ", responseTimeout=" + responseTimeout + ", idleTimeout="
                + idleTimeout + (totalTimeout.isZero() ? "" : ", totalTimeout=" + totalTimeout) + ", maxConnectionsPerDestination=" + maxConnectionsPerDestination + ", maxWaitingRequests="
                + maxWaitingRequests + ", maxPipelined=" + maxPipelined + ", maxResponseBodySize=" + maxResponseBodySize
                + (followRedirects > 0 ? ", followRedirects=" + followRedirects : "") + (proxy != null ? ", proxy=" + proxy : "")
                + (decompression ? ", decompression" : "") + (http2 ? ", http2" : "") + (h2cPriorKnowledge ? ", h2cPriorKnowledge" : "")
                + (interceptors.length > 0 ? ", interceptors=" + interceptors.length : "")
                + (tlsContext != null ? ", tls=context" : "") + (trustStore != null ? ", trustStore" : "") + (keyStore != null ? ", keyStore" : "")
                + (hostnameVerification ? "" : ", hostnameVerification=false") + "]";
    }
}
