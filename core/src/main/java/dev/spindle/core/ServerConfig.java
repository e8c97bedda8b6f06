// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.spi.SystemProperty;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * What every server is told, whatever its strategy: address, worker count, protocol limits,
 * timeouts and buffer sizes. Immutable; each setter-like method returns a changed copy:
 * {@code ServerConfig.defaults().port(8080).workers(4)}.
 *
 * <table>
 *   <caption>Settings, their system properties (read by {@link #fromSystemProperties()}) and defaults</caption>
 *   <tr><th>setting</th><th>property</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>host</td><td>spindle.host</td><td>127.0.0.1</td><td>address to bind</td></tr>
 *   <tr><td>workers</td><td>(CLI argument)</td><td>available processors</td><td>event loops, rings or pool threads, per server</td></tr>
 *   <tr><td>maxRequestLineLength</td><td>spindle.maxRequestLine</td><td>8192</td><td>longer request line: 414 and a close</td></tr>
 *   <tr><td>maxHeaderSize</td><td>spindle.maxHeaderSize</td><td>32768</td><td>larger header section: 431 and a close</td></tr>
 *   <tr><td>maxHeaderCount</td><td>spindle.maxHeaderCount</td><td>128</td><td>more header fields: 431 and a close (on HTTP/2, 431 on that stream)</td></tr>
 *   <tr><td>maxBodySize</td><td>spindle.maxBodySize</td><td>16 MiB</td><td>larger buffered request body (announced or chunked; an inline handler's, and a streamed body read whole by {@link Request#body()} and the like): 413 and a close. A route may set its own ({@link RouteOptions#maxBodySize})</td></tr>
 *   <tr><td>maxStreamedBodySize</td><td>spindle.maxStreamedBodySize</td><td>no limit</td><td>larger request body streamed to a blocking or asynchronous handler: 413 and a close. A route may set its own ({@link RouteOptions#maxBodySize})</td></tr>
 *   <tr><td>bufferedBodyBudget</td><td>spindle.bufferedBodyBudget</td><td>a quarter of the maximum heap</td><td>bytes all connections of a server together may hold in buffered request bodies; a body that does not fit beside those in flight is answered 503 with {@code Retry-After: 1} (413 if it could never fit) and its connection closed: at the header section for an announced length, as it grows for a chunked one</td></tr>
 *   <tr><td>keepAlive</td><td>spindle.keepAlive</td><td>true</td><td>false: every HTTP/1.1 response closes its connection (an HTTP/2 connection carries its streams until the client ends it, it idles, or the server drains)</td></tr>
 *   <tr><td>headerTimeout</td><td>spindle.headerTimeoutMs</td><td>10 s</td><td>the read timeout of a request in progress: once its first byte has arrived, the whole request (header section and body) must arrive within it, else 408 and a close (on HTTP/2, a stream's request from the stream's opening: 408 on that stream, or a reset if its answer has begun)</td></tr>
 *   <tr><td>idleTimeout</td><td>spindle.idleTimeoutMs</td><td>60 s</td><td>a connection with no request in progress (new, or kept alive after a response) is closed, without a response, after this long</td></tr>
 *   <tr><td>writeTimeout</td><td>spindle.writeTimeoutMs</td><td>30 s</td><td>output the peer does not read within it (a write that cannot finish) drops the connection</td></tr>
 *   <tr><td>handlerTimeout</td><td>spindle.handlerTimeoutMs</td><td>30 s</td><td>a blocking or asynchronous handler that has not answered within it is answered 503 and its connection closed; a streamed response body that produces nothing for this long ends its connection</td></tr>
 *   <tr><td>blockedLoopThreshold</td><td>spindle.blockedLoopThresholdMs</td><td>1 s</td><td>event-loop servers (NIO, io_uring): a handler that holds its loop longer than this (an inline handler, or the start of an asynchronous one) gets one WARN naming its route, with the loop's stack taken while it is blocked; 0 turns the detector off. Blocking servers run handlers on a thread of their own and never warn</td></tr>
 *   <tr><td>discardLimit</td><td>spindle.discardLimit</td><td>1 MiB</td><td>request body a handler left unread that is read and dropped to keep the connection; a larger (or announced larger) rest closes the connection after the response instead</td></tr>
 *   <tr><td>shutdownHook</td><td>spindle.shutdownHook</td><td>true</td><td>a JVM shutdown (SIGTERM, SIGINT, {@code System.exit}) closes a started server gracefully, as close() does; false leaves that to the application</td></tr>
 *   <tr><td>drainDelay</td><td>spindle.drainDelayMs</td><td>0</td><td>how long close() (and so SIGTERM) goes on serving as usual, after it turned the router's {@link Health} readiness down and before the drain: new connections are accepted and kept alive as before, so that a load balancer probing readiness stops sending to this instance while it still answers; 0 drains at once</td></tr>
 *   <tr><td>drainTimeout</td><td>spindle.drainTimeoutMs</td><td>10 s</td><td>how long close() (and so SIGTERM) waits for in-flight requests before closing the connections still busy; meanwhile every response says Connection: close, and an idle keep-alive connection gets 1 s (at most half this timeout) for one more request before it is closed, so a client or load balancer that has just sent on it is answered, not reset</td></tr>
 *   <tr><td>maxConnections</td><td>spindle.maxConnections</td><td>10000</td><td>open connections; one more is answered 503 and closed</td></tr>
 *   <tr><td>readBufferSize</td><td>spindle.readBufferSize</td><td>16384</td><td>bytes read per socket read (io_uring: per provided buffer)</td></tr>
 *   <tr><td>writeHighWaterMark</td><td>spindle.writeHighWaterMark</td><td>65536</td><td>pending output above which a connection is not read (back-pressure: a client that does not read its responses cannot make the server buffer more of its requests)</td></tr>
 *   <tr><td>backlog</td><td>spindle.backlog</td><td>1024</td><td>listen backlog of each listening socket (the kernel caps it at net.core.somaxconn)</td></tr>
 *   <tr><td>reusePort</td><td>spindle.reusePort</td><td>false</td><td>bind every listening socket with SO_REUSEPORT, so a second process of the same user can listen on the same port: a new version starts beside the old one, which then drains on SIGTERM (a zero-downtime restart). Servers whose design needs it set it anyway (ReusePortServer, IoUringServer)</td></tr>
 *   <tr><td>tls</td><td>spindle.tls.keystore, spindle.tls.password</td><td>none (plain HTTP)</td><td>speak HTTPS on the port, with the key in this key store ({@link Tls#fromKeyStore})</td></tr>
 *   <tr><td>h2c</td><td>spindle.h2c</td><td>true</td><td>a plain port also speaks HTTP/2 (h2c): to a client whose first bytes are the HTTP/2 connection preface (prior knowledge, RFC 9113 3.3), and to an HTTP/1.1 request without a body that asks for {@code Upgrade: h2c} with {@code HTTP2-Settings} (answered 101, then on stream 1)</td></tr>
 *   <tr><td>h2</td><td>spindle.h2</td><td>true</td><td>a TLS port offers {@code h2} before {@code http/1.1} by ALPN; a client offering neither gets TLS's {@code no_application_protocol} alert, one offering no ALPN gets HTTP/1.1</td></tr>
 *   <tr><td>http2MaxConcurrentStreams</td><td>spindle.http2.maxConcurrentStreams</td><td>128</td><td>SETTINGS_MAX_CONCURRENT_STREAMS: streams one HTTP/2 connection may have open (a reset stream frees its slot at once; handlers of reset streams still running are bounded apart, at 4 times this per connection); more are refused with REFUSED_STREAM</td></tr>
 * </table>
 * Every server honours every limit above, except where its class Javadoc says otherwise. What
 * only one strategy understands is that strategy module's own settings, with their own
 * properties: the NIO servers' {@code NioSettings} (busy-polling, direct buffers), the blocking
 * servers' {@code BlockingSettings} (ThreadPoolServer's queue) and io_uring's {@code Tuning}
 * ({@code spindle.iouring.*}); each server's Javadoc names them.
 *
 * <p>Every setter checks its value and leaves this configuration unchanged: a value outside the
 * range its {@code @param} gives throws {@link IllegalArgumentException}, a null one
 * {@link NullPointerException}.
 */
public final class ServerConfig {
    private String host = "127.0.0.1";
    private int port;
    private int workers = Runtime.getRuntime().availableProcessors();
    private int maxRequestLineLength = 8192;
    private int maxHeaderSize = 32 * 1024;
    private int maxHeaderCount = 128;
    private long maxBodySize = 16L * 1024 * 1024;
    private long maxStreamedBodySize = Long.MAX_VALUE;
    private long bufferedBodyBudget = Runtime.getRuntime().maxMemory() / 4;
    private boolean keepAlive = true;
    private boolean shutdownHook = true;
    private Duration headerTimeout = Duration.ofSeconds(10);
    private Duration idleTimeout = Duration.ofSeconds(60);
    private Duration writeTimeout = Duration.ofSeconds(30);
    private Duration drainTimeout = Duration.ofSeconds(10);
    private Duration drainDelay = Duration.ZERO;
    private Duration handlerTimeout = Duration.ofSeconds(30);
    private Duration blockedLoopThreshold = Duration.ofSeconds(1);
    private long discardLimit = 1L << 20;
    private int maxConnections = 10_000;
    private int readBufferSize = 16 * 1024;
    private int writeHighWaterMark = 64 * 1024;
    private int backlog = 1024;
    private boolean reusePort;
    private Tls tls;
    private boolean h2c = true;
    private boolean h2 = true;
    private int http2MaxConcurrentStreams = 128;

    private ServerConfig() {
    }

    /**
     * Every setting at its default (the table above); system properties are not read.
     *
     * @return a new configuration with the defaults
     */
    public static ServerConfig defaults() {
        return new ServerConfig();
    }

    /**
     * Defaults overridden by any {@code spindle.*} system property in the table above. A blank
     * property counts as unset; durations are whole milliseconds. {@code workers} and {@code port}
     * are not read: they come from the command line or the setters.
     *
     * @return the configuration the properties describe
     * @throws IllegalArgumentException if a property does not parse or is out of range (the message
     *         names the property)
     */
    public static ServerConfig fromSystemProperties() {
        ServerConfig c = defaults();
        c.host = prop("spindle.host", c.host, Function.identity());
        c.maxRequestLineLength = prop("spindle.maxRequestLine", c.maxRequestLineLength, Integer::parseInt);
        c.maxHeaderSize = prop("spindle.maxHeaderSize", c.maxHeaderSize, Integer::parseInt);
        c.maxHeaderCount = prop("spindle.maxHeaderCount", c.maxHeaderCount, Integer::parseInt);
        c.maxBodySize = prop("spindle.maxBodySize", c.maxBodySize, Long::parseLong);
        c.maxStreamedBodySize = prop("spindle.maxStreamedBodySize", c.maxStreamedBodySize, Long::parseLong);
        c.bufferedBodyBudget = prop("spindle.bufferedBodyBudget", c.bufferedBodyBudget, Long::parseLong);
        c.keepAlive = prop("spindle.keepAlive", c.keepAlive, Boolean::parseBoolean);
        c.shutdownHook = prop("spindle.shutdownHook", c.shutdownHook, Boolean::parseBoolean);
        c.headerTimeout = prop("spindle.headerTimeoutMs", c.headerTimeout, ServerConfig::millis);
        c.idleTimeout = prop("spindle.idleTimeoutMs", c.idleTimeout, ServerConfig::millis);
        c.writeTimeout = prop("spindle.writeTimeoutMs", c.writeTimeout, ServerConfig::millis);
        c.drainTimeout = prop("spindle.drainTimeoutMs", c.drainTimeout, ServerConfig::millis);
        c.drainDelay = prop("spindle.drainDelayMs", c.drainDelay, ServerConfig::millis);
        c.handlerTimeout = prop("spindle.handlerTimeoutMs", c.handlerTimeout, ServerConfig::millis);
        c.blockedLoopThreshold = prop("spindle.blockedLoopThresholdMs", c.blockedLoopThreshold, ServerConfig::millis);
        c.discardLimit = prop("spindle.discardLimit", c.discardLimit, Long::parseLong);
        c.maxConnections = prop("spindle.maxConnections", c.maxConnections, Integer::parseInt);
        c.readBufferSize = prop("spindle.readBufferSize", c.readBufferSize, Integer::parseInt);
        c.writeHighWaterMark = prop("spindle.writeHighWaterMark", c.writeHighWaterMark, Integer::parseInt);
        c.backlog = prop("spindle.backlog", c.backlog, Integer::parseInt);
        c.reusePort = prop("spindle.reusePort", c.reusePort, ServerConfig::strictBoolean);
        c.h2c = prop("spindle.h2c", c.h2c, ServerConfig::strictBoolean);
        c.h2 = prop("spindle.h2", c.h2, ServerConfig::strictBoolean);
        c.http2MaxConcurrentStreams = prop("spindle.http2.maxConcurrentStreams", c.http2MaxConcurrentStreams, Integer::parseInt);
        c.tls = prop("spindle.tls.keystore", null, file -> Tls.fromKeyStore(java.nio.file.Path.of(file),
                System.getProperty("spindle.tls.password", "").toCharArray()));
        return c.validated();
    }

    private static boolean strictBoolean(String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not true or false");
        };
    }

    private static Duration millis(String value) {
        return Duration.ofMillis(Long.parseLong(value));
    }

    private static <T> T prop(String name, T fallback, Function<String, T> parse) {
        return SystemProperty.read(name, fallback, parse);
    }

    private ServerConfig copy() {
        ServerConfig c = new ServerConfig();
        c.host = host;
        c.port = port;
        c.workers = workers;
        c.maxRequestLineLength = maxRequestLineLength;
        c.maxHeaderSize = maxHeaderSize;
        c.maxHeaderCount = maxHeaderCount;
        c.maxBodySize = maxBodySize;
        c.maxStreamedBodySize = maxStreamedBodySize;
        c.bufferedBodyBudget = bufferedBodyBudget;
        c.keepAlive = keepAlive;
        c.shutdownHook = shutdownHook;
        c.headerTimeout = headerTimeout;
        c.idleTimeout = idleTimeout;
        c.writeTimeout = writeTimeout;
        c.drainTimeout = drainTimeout;
        c.drainDelay = drainDelay;
        c.handlerTimeout = handlerTimeout;
        c.blockedLoopThreshold = blockedLoopThreshold;
        c.discardLimit = discardLimit;
        c.maxConnections = maxConnections;
        c.readBufferSize = readBufferSize;
        c.writeHighWaterMark = writeHighWaterMark;
        c.backlog = backlog;
        c.reusePort = reusePort;
        c.tls = tls;
        c.h2c = h2c;
        c.h2 = h2;
        c.http2MaxConcurrentStreams = http2MaxConcurrentStreams;
        return c;
    }

    private ServerConfig validated() {
        positive("workers", workers);
        positive("maxRequestLineLength", maxRequestLineLength);
        positive("maxHeaderSize", maxHeaderSize);
        positive("maxHeaderCount", maxHeaderCount);
        positive("maxConnections", maxConnections);
        positive("readBufferSize", readBufferSize);
        positive("writeHighWaterMark", writeHighWaterMark);
        positive("backlog", backlog);
        positive("http2MaxConcurrentStreams", http2MaxConcurrentStreams);
        if (maxBodySize < 0 || maxBodySize > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("maxBodySize must be 0.." + (Integer.MAX_VALUE - 64) + ", got " + maxBodySize);
        }
        if (maxStreamedBodySize < 0) {
            throw new IllegalArgumentException("maxStreamedBodySize must not be negative, got " + maxStreamedBodySize);
        }
        if (bufferedBodyBudget < 0) {
            throw new IllegalArgumentException("bufferedBodyBudget must not be negative, got " + bufferedBodyBudget);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + port);
        }
        if (blockedLoopThreshold.isNegative()) {
            throw new IllegalArgumentException("blockedLoopThreshold must not be negative, got " + blockedLoopThreshold);
        }
        if (drainDelay.isNegative()) {
            throw new IllegalArgumentException("drainDelay must not be negative, got " + drainDelay);
        }
        if (discardLimit < 0) {
            throw new IllegalArgumentException("discardLimit must not be negative, got " + discardLimit);
        }
        for (Duration d : new Duration[] {headerTimeout, idleTimeout, writeTimeout, drainTimeout, handlerTimeout}) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("timeouts must be positive, got " + d);
            }
        }
        return this;
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    private ServerConfig with(java.util.function.Consumer<ServerConfig> change) {
        ServerConfig c = copy();
        change.accept(c);
        return c.validated();
    }

    /** The port to bind; 0 (the default) picks a free one when the server starts.
     *  @param port 0 to 65535
     *  @return a copy with this port */
    public ServerConfig port(int port) { return with(c -> c.port = port); }
    /** The address to bind: a host name or IP literal, resolved at start ({@code 0.0.0.0} for every
     *  interface).
     *  @param host not null; default {@code 127.0.0.1} (loopback only)
     *  @return a copy with this host */
    public ServerConfig host(String host) { return with(c -> c.host = Objects.requireNonNull(host, "host")); }
    /** Event loops, rings or pool threads, as the server's class Javadoc says; some servers ignore it.
     *  @param workers positive; default: available processors
     *  @return a copy with this worker count */
    public ServerConfig workers(int workers) { return with(c -> c.workers = workers); }
    /** The longest request line accepted; a longer one is answered 414 and the connection closed.
     *  @param bytes positive; default 8192
     *  @return a copy with this limit */
    public ServerConfig maxRequestLineLength(int bytes) { return with(c -> c.maxRequestLineLength = bytes); }
    /** The largest header section accepted; a larger one is answered 431 and the connection closed.
     *  @param bytes positive; default 32768
     *  @return a copy with this limit */
    public ServerConfig maxHeaderSize(int bytes) { return with(c -> c.maxHeaderSize = bytes); }
    /** The most header fields a request may have; more are answered 431 and the connection closed
     *  (on HTTP/2 the stream is answered 431; cookie crumbs count as one field, :authority as a host field).
     *  @param count positive; default 128
     *  @return a copy with this limit */
    public ServerConfig maxHeaderCount(int count) { return with(c -> c.maxHeaderCount = count); }
    /** The largest buffered request body, announced or chunked: what an inline handler's request
     *  may carry, and what a streamed body read whole ({@link Request#body()}, {@link RequestBody#readAll()})
     *  may hold. A larger one is answered 413 and the connection closed. A route may set its own
     *  limit ({@link RouteOptions#maxBodySize}). The default is the design contract's 16 MiB: more
     *  than Javalin's 1 MB {@code maxRequestSize} (a JSON service rarely needs more) yet small
     *  enough that a handful of bodies in flight stay well inside a small heap.
     *  @param bytes 0 to {@code Integer.MAX_VALUE - 64}; default 16 MiB
     *  @return a copy with this limit */
    public ServerConfig maxBodySize(long bytes) { return with(c -> c.maxBodySize = bytes); }
    /** The largest request body streamed to a blocking or asynchronous handler (through
     *  {@link Request#bodyStream()} or {@link Request#bodyPublisher()}); a larger one is answered 413
     *  and the connection closed. A route may set its own limit ({@link RouteOptions#maxBodySize}).
     *  No limit by default: a streamed body holds only a 64 KiB window in the server however long it
     *  is, and the handler decides what it keeps, as with Netty's {@code HttpServerCodec} and Jetty,
     *  which stream without a cap; reading it whole is bounded by {@link #maxBodySize(long)} instead.
     *  @param bytes 0 or more ({@link Long#MAX_VALUE} for no limit); default no limit
     *  @return a copy with this limit */
    public ServerConfig maxStreamedBodySize(long bytes) { return with(c -> c.maxStreamedBodySize = bytes); }
    /** The bytes all connections of a server together may hold in buffered request bodies (what
     *  input buffers grow beyond their initial size): a body that does not fit beside those in flight
     *  is answered 503 with {@code Retry-After: 1}, or 413 if it is larger than the whole budget, and
     *  its connection closed. Without it the worst case is {@code maxConnections × maxBodySize}, far
     *  beyond any heap. The default, a quarter of {@link Runtime#maxMemory()} (32 MiB at
     *  {@code -Xmx128m}, two 16 MiB bodies at once), leaves the rest of the heap to what handlers
     *  make of the bodies (a String or parsed JSON is often larger than the bytes), to output buffers
     *  and to the collector's headroom; Netty and Javalin bound each aggregated body only, not their
     *  sum, which is how a few concurrent large bodies run their heap out.
     *  @param bytes 0 or more ({@link Long#MAX_VALUE} for no bound); default a quarter of the maximum heap
     *  @return a copy with this budget */
    public ServerConfig bufferedBodyBudget(long bytes) { return with(c -> c.bufferedBodyBudget = bytes); }
    /** Whether connections stay open for further requests after a response.
     *  @param keepAlive false to close the connection after every response; default true
     *  @return a copy with this setting */
    public ServerConfig keepAlive(boolean keepAlive) { return with(c -> c.keepAlive = keepAlive); }
    /** Whether a started server closes gracefully on JVM shutdown (SIGTERM, SIGINT, {@code
     *  System.exit}).
     *  @param on false to leave closing to the application; default true
     *  @return a copy with this setting */
    public ServerConfig shutdownHook(boolean on) { return with(c -> c.shutdownHook = on); }
    /** How long a request in progress may take to arrive once its first byte has (for a streamed body:
     *  how long it may send nothing); then 408 and a close. On HTTP/2 a stream's request is timed from
     *  the stream's opening, and answered 408 on that stream (reset if its answer has begun).
     *  @param d positive, not null; default 10 s
     *  @return a copy with this timeout */
    public ServerConfig headerTimeout(Duration d) { return with(c -> c.headerTimeout = Objects.requireNonNull(d)); }
    /** How long a connection with no request in progress stays open; then it is closed without a
     *  response.
     *  @param d positive, not null; default 60 s
     *  @return a copy with this timeout */
    public ServerConfig idleTimeout(Duration d) { return with(c -> c.idleTimeout = Objects.requireNonNull(d)); }
    /** How long output may wait for the peer to take it; then the connection is dropped.
     *  @param d positive, not null; default 30 s
     *  @return a copy with this timeout */
    public ServerConfig writeTimeout(Duration d) { return with(c -> c.writeTimeout = Objects.requireNonNull(d)); }
    /** How long {@link HttpServer#close()} waits for in-flight requests before closing the connections
     *  still busy.
     *  @param d positive, not null; default 10 s
     *  @return a copy with this timeout */
    public ServerConfig drainTimeout(Duration d) { return with(c -> c.drainTimeout = Objects.requireNonNull(d)); }
    /**
     * How long {@link HttpServer#close()} (and so SIGTERM) goes on serving before it drains. The
     * close first turns the router's {@link Health} readiness down ({@link Router.Builder#health}),
     * then serves as if nothing happened for this long (new connections accepted, keep-alive as
     * usual), then drains as {@link #drainTimeout(Duration)} says: a load balancer that probes
     * readiness has time to see it down and stop sending here before this server stops accepting,
     * so no request is sent to a closed port. Set it a little above what the balancer needs to
     * notice (its check interval times the failures it waits for, plus one interval); Kubernetes
     * users give the same time to a {@code preStop} sleep instead, or use both. A close then
     * takes up to this delay plus the drain timeout. The thread that closes waits the delay out;
     * interrupting it ends the wait and hurries the drain. Each server's own shutdown hook waits on
     * its own thread, and the JVM runs the hooks at once, so servers of one JVM wait together.
     *
     * @param d zero (drain at once, as without it) or positive, not null; default zero
     * @return a copy with this delay
     */
    public ServerConfig drainDelay(Duration d) { return with(c -> c.drainDelay = Objects.requireNonNull(d)); }
    /** How long a blocking or asynchronous handler may take to answer (then 503 and a close), and a
     *  streamed response body may produce nothing (then a close).
     *  @param d positive, not null; default 30 s
     *  @return a copy with this timeout */
    public ServerConfig handlerTimeout(Duration d) { return with(c -> c.handlerTimeout = Objects.requireNonNull(d)); }
    /**
     * How long a handler may hold an event loop (or io_uring ring) thread before one WARN names its
     * route and shows the loop's stack, taken while it is still blocked: the blocked-loop detector,
     * as Vert.x's {@code BlockedThreadChecker}. It watches what runs on the loop, inline handlers
     * and the start of asynchronous ones; blocking servers run every handler on a thread of its
     * own, and never warn.
     *
     * <p>The default, 1 s, is far above what an inline handler should take (microseconds) and above
     * the pauses a healthy JVM's collector or JIT can add to one, so it does not cry wolf; and it is
     * below the 2 s Vert.x uses, so that a 2 s blocking call on a loop, which delays every other
     * connection of that loop by as much, is reported.
     *
     * @param d zero (the detector off) or positive, not null; default 1 s
     * @return a copy with this threshold
     */
    public ServerConfig blockedLoopThreshold(Duration d) { return with(c -> c.blockedLoopThreshold = Objects.requireNonNull(d)); }
    /** How much request body a handler left unread is read and dropped to keep the connection; beyond
     *  it the connection closes after the response.
     *  @param bytes 0 or more; default 1 MiB
     *  @return a copy with this limit */
    public ServerConfig discardLimit(long bytes) { return with(c -> c.discardLimit = bytes); }
    /** The most open connections; one more is answered 503 and closed.
     *  @param count positive; default 10000
     *  @return a copy with this limit */
    public ServerConfig maxConnections(int count) { return with(c -> c.maxConnections = count); }
    /** How many bytes one socket read takes at most (io_uring: the size of each provided buffer).
     *  @param bytes positive; default 16384
     *  @return a copy with this size */
    public ServerConfig readBufferSize(int bytes) { return with(c -> c.readBufferSize = bytes); }
    /** Pending output above which a connection's requests are not read and no more of a streamed body
     *  is produced (back-pressure).
     *  @param bytes positive; default 65536
     *  @return a copy with this mark */
    public ServerConfig writeHighWaterMark(int bytes) { return with(c -> c.writeHighWaterMark = bytes); }
    /** The listen backlog of each listening socket: connections the kernel completes before the
     *  server accepts them (capped by {@code net.core.somaxconn}).
     *  @param connections positive; default 1024
     *  @return a copy with this backlog */
    public ServerConfig backlog(int connections) { return with(c -> c.backlog = connections); }

    /** {@return the address to bind, a host name or IP literal} */
    public String host() { return host; }
    /** {@return the port to bind; 0 means a free one chosen at start (the bound one is {@link HttpServer#address()})} */
    public int port() { return port; }
    /** {@return the number of event loops, rings or pool threads the server starts, if it uses it} */
    public int workers() { return workers; }
    /** {@return the longest request line accepted, in bytes} */
    public int maxRequestLineLength() { return maxRequestLineLength; }
    /** {@return the largest header section accepted, in bytes} */
    public int maxHeaderSize() { return maxHeaderSize; }
    /** {@return the most header fields a request may have} */
    public int maxHeaderCount() { return maxHeaderCount; }
    /** {@return the largest buffered request body accepted, in bytes} */
    public long maxBodySize() { return maxBodySize; }
    /** {@return the largest request body streamed to a handler, in bytes ({@link Long#MAX_VALUE}: no limit)} */
    public long maxStreamedBodySize() { return maxStreamedBodySize; }
    /** {@return the bytes a server's connections together may hold in buffered request bodies} */
    public long bufferedBodyBudget() { return bufferedBodyBudget; }
    /** {@return whether connections stay open for further requests} */
    public boolean keepAlive() { return keepAlive; }
    /** {@return whether a started server closes gracefully on JVM shutdown} */
    public boolean shutdownHook() { return shutdownHook; }
    /** {@return how long a request in progress may take to arrive (for a streamed body: may send nothing)} */
    public Duration headerTimeout() { return headerTimeout; }
    /** {@return how long a connection with no request in progress stays open} */
    public Duration idleTimeout() { return idleTimeout; }
    /** {@return how long output may wait for the peer before the connection is dropped} */
    public Duration writeTimeout() { return writeTimeout; }
    /** {@return how long a graceful close waits for in-flight requests} */
    public Duration drainTimeout() { return drainTimeout; }
    /** {@return how long a close serves on, readiness down, before its drain; zero: it drains at once} */
    public Duration drainDelay() { return drainDelay; }
    /** {@return how long a blocking or asynchronous handler may take to answer} */
    public Duration handlerTimeout() { return handlerTimeout; }
    /** {@return how long a handler may hold an event loop before the blocked-loop detector warns; zero when it is off} */
    public Duration blockedLoopThreshold() { return blockedLoopThreshold; }
    /** {@return how many bytes of unread request body are dropped to keep a connection} */
    public long discardLimit() { return discardLimit; }
    /** {@return the most open connections} */
    public int maxConnections() { return maxConnections; }
    /** {@return the most bytes one socket read takes} */
    public int readBufferSize() { return readBufferSize; }
    /** {@return the pending output, in bytes, above which a connection is not read} */
    public int writeHighWaterMark() { return writeHighWaterMark; }
    /**
     * Binds every listening socket with {@code SO_REUSEPORT}, so another process of the same user
     * can listen on the same address and port (the kernel spreads new connections over both): the
     * way to start a new version before the old one drains.
     *
     * @param on whether to set the option
     * @return a copy with the option set or not
     */
    public ServerConfig reusePort(boolean on) { return with(c -> c.reusePort = on); }

    /** {@return whether every listening socket is bound with SO_REUSEPORT} */
    public boolean reusePort() { return reusePort; }

    /** {@return the listen backlog of each listening socket} */
    public int backlog() { return backlog; }

    /** Speak HTTPS on the port with these settings, or plain HTTP with null.
     *  @param tls the TLS settings, or null for plain HTTP
     *  @return a copy with this TLS setting */
    public ServerConfig tls(Tls tls) { return with(c -> c.tls = tls); }

    /** {@return the TLS settings, or null when the server speaks plain HTTP} */
    public Tls tls() { return tls; }

    /**
     * Whether a plain port also speaks HTTP/2 without TLS (h2c): to a client that starts with the
     * HTTP/2 connection preface, and to an HTTP/1.1 request that asks to upgrade.
     *
     * @param on false to speak HTTP/1.1 only on plain ports
     * @return a copy with h2c on or off
     */
    public ServerConfig h2c(boolean on) { return with(c -> c.h2c = on); }

    /** {@return whether a plain port also speaks HTTP/2 (h2c)} */
    public boolean h2c() { return h2c; }

    /**
     * Whether a TLS port offers HTTP/2 by ALPN, before HTTP/1.1.
     *
     * @param on false to offer HTTP/1.1 only
     * @return a copy with h2 on or off
     */
    public ServerConfig h2(boolean on) { return with(c -> c.h2 = on); }

    /** {@return whether a TLS port offers HTTP/2 by ALPN} */
    public boolean h2() { return h2; }

    /**
     * The most streams an HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS).
     * A reset stream gives its slot back at once; handlers of reset streams still running are bounded
     * apart, at four times this per connection (new streams are refused past it).
     *
     * @param streams positive; default 128 (Jetty's default)
     * @return a copy with this limit
     */
    public ServerConfig http2MaxConcurrentStreams(int streams) { return with(c -> c.http2MaxConcurrentStreams = streams); }

    /** {@return the most streams an HTTP/2 connection may have open at once} */
    public int http2MaxConcurrentStreams() { return http2MaxConcurrentStreams; }

    @Override
    public String toString() {
        return "ServerConfig[host=" + host + ", port=" + port + ", workers=" + workers
                + ", keepAlive=" + keepAlive + ", shutdownHook=" + shutdownHook + ", maxBodySize=" + maxBodySize + ", maxConnections=" + maxConnections
                + (tls != null ? ", tls=" + tls : "") + "]";
    }
}
