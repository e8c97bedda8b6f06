// SPDX-License-Identifier: Apache-2.0
package dev.spindle.micrometer;

import dev.spindle.core.Client;
import dev.spindle.core.ClientPool;
import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.ExchangeListener;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.ToIntFunction;

/**
 * Micrometer metrics for a Spindle server: an {@link ExchangeListener} that records every exchange
 * as it ends, with the names and tags Spring Boot and Micrometer's own instrumentations use, so
 * their dashboards and alerts work unchanged. Register it on the router, and bind the servers'
 * connection counts if wanted:
 *
 * <pre>{@code
 * SpindleMetrics metrics = new SpindleMetrics(registry);
 * Router router = Router.builder().listener(metrics).get("/users/{id}", handler).build();
 * VirtualThreadServer server = new VirtualThreadServer(config, router);
 * metrics.bindConnections(server::connectionCount);
 * server.start();
 * }</pre>
 *
 * <p>The meters:
 * <table>
 * <caption>What is registered</caption>
 * <tr><th>name</th><th>type</th><th>what</th></tr>
 * <tr><td>{@value #REQUESTS}</td><td>timer</td><td>every exchange, from its request's head to the last byte of its
 *     answer (Prometheus: {@code http_server_requests_seconds_count}, {@code _sum}, {@code _max})</td></tr>
 * <tr><td>{@value #REQUEST_SIZE}</td><td>distribution summary, bytes</td><td>the request body bytes received, of
 *     each request that had a body (as OpenTelemetry's {@code http.server.request.body.size} is recorded
 *     when there is one): a GET without one is not a sample of 0</td></tr>
 * <tr><td>{@value #RESPONSE_SIZE}</td><td>distribution summary, bytes</td><td>the response body bytes sent (not
 *     recorded when unknown: a streamed body cut short)</td></tr>
 * <tr><td>{@value #EXCHANGES_ACTIVE}</td><td>gauge</td><td>exchanges started and not yet ended</td></tr>
 * <tr><td>{@value #STREAMS_ACTIVE}</td><td>gauge</td><td>of those, the HTTP/2 streams</td></tr>
 * <tr><td>{@value #CONNECTIONS}</td><td>gauge</td><td>the open connections of the servers bound with
 *     {@link #bindConnections} (their sum); registered by the first call</td></tr>
 * </table>
 *
 * <p>The timer and the two summaries carry these tags, each of a bounded set of values, and the
 * common tags given to the constructor:
 * <ul>
 *   <li>{@code method}: {@code GET}, {@code HEAD}, {@code POST}, {@code PUT}, {@code DELETE},
 *       {@code PATCH}, {@code OPTIONS}, {@code TRACE}, {@code CONNECT}; {@value #OTHER_METHOD} for any
 *       other token (as OpenTelemetry's conventions have it), {@value #UNKNOWN} when no request line
 *       was read (a malformed head refused);</li>
 *   <li>{@code uri}: the matched route's template ({@code /users/{id}}), never the raw path; without a
 *       route, as Spring does: {@code NOT_FOUND} for a 404, {@code REDIRECTION} for a 3xx, else
 *       {@value #UNKNOWN} (a refusal before routing, a 405); {@code root} for an empty template;</li>
 *   <li>{@code status}: the status code sent, {@value #UNKNOWN} when none was (an exchange the client
 *       cut short before its head, an HTTP/2 stream refused);</li>
 *   <li>{@code outcome}: {@code INFORMATIONAL}, {@code SUCCESS}, {@code REDIRECTION},
 *       {@code CLIENT_ERROR} or {@code SERVER_ERROR} by the status class; {@value #UNKNOWN} for an
 *       exchange that ended without its whole answer ({@link ExchangeEnd.Outcome#ABORTED} or
 *       {@link ExchangeEnd.Outcome#REFUSED}), as Spring's is for an aborted connection;</li>
 *   <li>{@code exception}: the simple class name of {@link ExchangeEnd#failure()} (the handler's
 *       exception; the {@code HttpException} of a refusal or of the router's 404 and 405, core's
 *       exceptions always by their public type), {@code none} when there was none.</li>
 * </ul>
 *
 * <p>Percentile histograms and SLO buckets are the registry's to configure, with a
 * {@code MeterFilter} on {@value #REQUESTS}, as for any Micrometer timer. Each combination of tags
 * is registered once, on its first exchange; after that an exchange costs a lookup that allocates
 * nothing, a timer update and one or two summary updates, and two counter updates for the gauges. Thread-safe:
 * one instance serves every connection of every server it is registered with. Register one
 * instance per registry and set of common tags: Micrometer keeps the first meter of a name and tags,
 * so a second instance's gauges would not be the ones read.
 */
public final class SpindleMetrics implements ExchangeListener {
    /** The timer of every exchange. */
    public static final String REQUESTS = "http.server.requests";
    /** The distribution summary of request body sizes. */
    public static final String REQUEST_SIZE = "http.server.request.size";
    /** The distribution summary of response body sizes. */
    public static final String RESPONSE_SIZE = "http.server.response.size";
    /** The gauge of exchanges in flight. */
    public static final String EXCHANGES_ACTIVE = "spindle.exchanges.active";
    /** The gauge of HTTP/2 streams in flight. */
    public static final String STREAMS_ACTIVE = "spindle.http2.streams.active";
    /** The gauge of open connections. */
    public static final String CONNECTIONS = "spindle.connections.open";
    /** Gauge: a {@link Client}'s connections open (idle included), by {@code destination}. */
    public static final String CLIENT_OPEN = "spindle.client.connections.open";
    /** Gauge: a {@link Client}'s idle kept-alive connections, by {@code destination}. */
    public static final String CLIENT_IDLE = "spindle.client.connections.idle";
    /** Gauge: a {@link Client}'s requests waiting for a connection, by {@code destination}. */
    public static final String CLIENT_WAITING = "spindle.client.requests.waiting";
    /** The {@code destination} tag of the destinations not tagged by name (see {@link #bindClient(Client, Duration, int)}). */
    public static final String OTHER_DESTINATIONS = "_other";
    /** The tag value for what is not known: no request line, no status, no whole answer, no route. */
    public static final String UNKNOWN = "UNKNOWN";
    /** The {@code method} tag of a method outside the standard set. */
    public static final String OTHER_METHOD = "_OTHER";

    private static final String[] METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT",
            OTHER_METHOD, UNKNOWN};
    private static final int OTHER = 9;
    private static final int NO_METHOD = 10;
    private static final String HTTP_2 = "HTTP/2";
    private static final String CORE = "dev.spindle.core";

    private final MeterRegistry registry;
    private final Tags common;
    private final LongAdder active = new LongAdder();
    private final LongAdder streams = new LongAdder();
    private final List<IntSupplier> connections = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<String, UriMeters> routes = new ConcurrentHashMap<>();
    /** Refreshes the rows of the clients bound without named destinations; made by the first. */
    private ScheduledExecutorService refresher;
    private final UriMeters notFound;
    private final UriMeters redirection;
    private final UriMeters unknown;

    /**
     * Metrics on {@code registry}, without common tags.
     *
     * @param registry where the meters are registered, not null
     */
    public SpindleMetrics(MeterRegistry registry) {
        this(registry, Tags.empty());
    }

    /**
     * Metrics on {@code registry}, every meter with {@code tags} as well (a server's name, say).
     *
     * @param registry where the meters are registered, not null
     * @param tags tags added to every meter, not null
     */
    public SpindleMetrics(MeterRegistry registry, Iterable<Tag> tags) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.common = Tags.of(Objects.requireNonNull(tags, "tags"));
        notFound = new UriMeters("NOT_FOUND");
        redirection = new UriMeters("REDIRECTION");
        unknown = new UriMeters(UNKNOWN);
        Gauge.builder(EXCHANGES_ACTIVE, active, LongAdder::sum).tags(common)
                .description("Exchanges started and not yet ended").register(registry);
        Gauge.builder(STREAMS_ACTIVE, streams, LongAdder::sum).tags(common)
                .description("HTTP/2 streams whose exchange started and has not yet ended").register(registry);
    }

    /**
     * Counts a server's open connections in the {@value #CONNECTIONS} gauge, which reads the sum of
     * every supplier bound: {@code metrics.bindConnections(server::connectionCount)}, which every
     * Spindle server has. The first call registers the gauge.
     *
     * @param openConnections gives the connections open now; called on each read of the gauge, from
     *        the registry's thread
     * @return this
     */
    public SpindleMetrics bindConnections(IntSupplier openConnections) {
        Objects.requireNonNull(openConnections, "openConnections");
        boolean first;
        synchronized (connections) {
            first = connections.isEmpty();
            connections.add(openConnections);
        }
        if (first) {
            Gauge.builder(CONNECTIONS, connections, SpindleMetrics::sum).tags(common)
                    .description("Connections open").register(registry);
        }
        return this;
    }

    /**
     * Gauges of a client's pools ({@link Client#pools()}): {@value #CLIENT_OPEN},
     * {@value #CLIENT_IDLE} and {@value #CLIENT_WAITING}, each tagged {@code destination} with one
     * of {@code destinations} as {@link ClientPool#destination()} names it (such as
     * {@code https://payments.internal:443}: the tag's values are the ones given, so they stay
     * few). A destination the client has not called yet reads 0.
     *
     * @param client the client
     * @param destinations the destinations to watch, {@code http://} or {@code https://} and the
     *        address's {@code host:port} as given
     * @return this
     */
    public SpindleMetrics bindClient(Client client, String... destinations) {
        Objects.requireNonNull(client, "client");
        for (String destination : destinations) {
            Objects.requireNonNull(destination, "destination");
            Tags tags = common.and("destination", destination);
            Gauge.builder(CLIENT_OPEN, client, c -> pool(c, destination).open()).tags(tags)
                    .description("The client's connections open to the destination, idle ones included").register(registry);
            Gauge.builder(CLIENT_IDLE, client, c -> pool(c, destination).idle()).tags(tags)
                    .description("The client's idle kept-alive connections to the destination").register(registry);
            Gauge.builder(CLIENT_WAITING, client, c -> pool(c, destination).waiting()).tags(tags)
                    .description("The client's requests waiting for a connection to the destination").register(registry);
        }
        return this;
    }

    /**
     * Gauges of every destination a client calls, without naming them first: the same three gauges
     * as {@link #bindClient(Client, String...)}, one row per destination found in
     * {@link Client#pools()}, looked for every {@code refresh} by a daemon thread of this instance
     * (rows are Micrometer {@code MultiGauge}s, refreshed on a schedule as Micrometer's Kafka
     * binder refreshes its meters). To keep the tag's values few, the first
     * {@code maxDestinations} destinations found are tagged by name and keep their rows (reading 0
     * once their connections are gone); any others are summed in the rows tagged
     * {@code destination} = {@value #OTHER_DESTINATIONS}. Bind a client once, and not also by name.
     *
     * @param client the client
     * @param refresh how often new destinations are looked for, at least 1 ms
     * @param maxDestinations how many destinations are tagged by name, at least 0
     * @return this
     */
    public SpindleMetrics bindClient(Client client, Duration refresh, int maxDestinations) {
        Objects.requireNonNull(client, "client");
        if (Objects.requireNonNull(refresh, "refresh").toMillis() < 1) {
            throw new IllegalArgumentException("refresh must be at least 1 ms: " + refresh);
        }
        if (maxDestinations < 0) {
            throw new IllegalArgumentException("maxDestinations must be at least 0: " + maxDestinations);
        }
        ClientRows rows = new ClientRows(client, maxDestinations);
        rows.refresh();
        refresher().scheduleWithFixedDelay(rows::refresh, refresh.toMillis(), refresh.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private ScheduledExecutorService refresher() {
        synchronized (connections) {
            if (refresher == null) {
                refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "spindle-metrics-refresh");
                    t.setDaemon(true);
                    return t;
                });
            }
            return refresher;
        }
    }

    /** One client's rows: the destinations tagged by name so far, in the order found, and the rest summed. */
    private final class ClientRows {
        private final Client client;
        private final int maxDestinations;
        /** Written by the refresher, read by the registry's thread too. */
        private final Set<String> named = ConcurrentHashMap.newKeySet();
        private final MultiGauge open;
        private final MultiGauge idle;
        private final MultiGauge waiting;

        ClientRows(Client client, int maxDestinations) {
            this.client = client;
            this.maxDestinations = maxDestinations;
            open = MultiGauge.builder(CLIENT_OPEN).tags(common)
                    .description("The client's connections open to the destination, idle ones included").register(registry);
            idle = MultiGauge.builder(CLIENT_IDLE).tags(common)
                    .description("The client's idle kept-alive connections to the destination").register(registry);
            waiting = MultiGauge.builder(CLIENT_WAITING).tags(common)
                    .description("The client's requests waiting for a connection to the destination").register(registry);
        }

        void refresh() {
            for (ClientPool p : client.pools()) {
                if (named.size() < maxDestinations) {
                    named.add(p.destination());
                }
            }
            open.register(rows(ClientPool::open), true);
            idle.register(rows(ClientPool::idle), true);
            waiting.register(rows(ClientPool::waiting), true);
        }

        private List<MultiGauge.Row<?>> rows(ToIntFunction<ClientPool> figure) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>(named.size() + 1);
            for (String destination : named) {
                rows.add(MultiGauge.Row.of(Tags.of("destination", destination), client, c -> figure.applyAsInt(pool(c, destination))));
            }
            rows.add(MultiGauge.Row.of(Tags.of("destination", OTHER_DESTINATIONS), client, c -> {
                long sum = 0;
                for (ClientPool p : c.pools()) {
                    if (!named.contains(p.destination())) {
                        sum += figure.applyAsInt(p);
                    }
                }
                return sum;
            }));
            return rows;
        }
    }

    private static ClientPool pool(Client client, String destination) {
        for (ClientPool p : client.pools()) {
            if (p.destination().equals(destination)) {
                return p;
            }
        }
        return new ClientPool(destination, 0, 0, 0);
    }

    private static double sum(List<IntSupplier> suppliers) {
        long n = 0;
        for (IntSupplier s : suppliers) {
            n += s.getAsInt();
        }
        return n;
    }

    @Override
    public void exchangeStarted(String method, String protocol) {
        active.increment();
        if (HTTP_2.equals(protocol)) {
            streams.increment();
        }
    }

    @Override
    public void exchangeEnded(ExchangeEnd end) {
        int status = end.status();
        boolean whole = end.outcome() == ExchangeEnd.Outcome.COMPLETE;
        Meters meters = uri(end.route(), status).meters(method(end.method()), status, whole, failureType(end.failure()));
        long received = end.requestBodyBytes();
        if (received > 0) {
            meters.requestSize.record(received);
        }
        long sent = end.responseBodyBytes();
        if (sent >= 0) {
            meters.responseSize.record(sent);
        }
        active.decrement();
        if (HTTP_2.equals(end.protocol())) {
            streams.decrement();
        }
        // last: once the timer counts an exchange, its sizes and the gauges already show it
        meters.timer.record(end.durationNanos(), TimeUnit.NANOSECONDS);
    }

    private static Class<?> failureType(Throwable failure) {
        return failure == null ? null : failure.getClass();
    }

    private UriMeters uri(String route, int status) {
        if (route != null) {
            UriMeters meters = routes.get(route);
            return meters != null ? meters : routes.computeIfAbsent(route, r -> new UriMeters(r.isEmpty() ? "root" : r));
        }
        if (status == 404) {
            return notFound;
        }
        return status >= 300 && status < 400 ? redirection : unknown;
    }

    private static int method(String method) {
        return switch (method) {
            case "GET" -> 0;
            case "HEAD" -> 1;
            case "POST" -> 2;
            case "PUT" -> 3;
            case "DELETE" -> 4;
            case "PATCH" -> 5;
            case "OPTIONS" -> 6;
            case "TRACE" -> 7;
            case "CONNECT" -> 8;
            case "" -> NO_METHOD;
            default -> OTHER;
        };
    }

    static String outcome(int status, boolean whole) {
        if (!whole) {
            return UNKNOWN;
        }
        return switch (status / 100) {
            case 1 -> "INFORMATIONAL";
            case 2 -> "SUCCESS";
            case 3 -> "REDIRECTION";
            case 4 -> "CLIENT_ERROR";
            case 5 -> "SERVER_ERROR";
            default -> UNKNOWN;
        };
    }

    static String exception(Class<?> failure) {
        if (failure == null) {
            return "none";
        }
        // Spindle's internal exceptions (the router's 405) by the public type they are: the tag's
        // values are then those of Spindle's API, whatever its internals are named
        while (failure.getPackageName().startsWith(CORE) && !Modifier.isPublic(failure.getModifiers())) {
            failure = failure.getSuperclass();
        }
        String name = failure.getSimpleName();
        return name.isEmpty() ? failure.getName() : name;
    }

    /** The three meters of one combination of tags. */
    private record Meters(Timer timer, DistributionSummary requestSize, DistributionSummary responseSize) {
    }

    /** One slot of a {@link UriMeters} table: a combination of method, status, outcome and failure type. */
    private record Slot(int key, Class<?> failure, Meters meters) {
    }

    /**
     * The meters of one {@code uri} tag, by the other tags: an open-addressed table, read without a
     * lock or an allocation, copied on the rare write (a combination seen for the first time).
     */
    private final class UriMeters {
        private final String uri;
        private volatile Slot[] slots = new Slot[8];
        private int size;

        UriMeters(String uri) {
            this.uri = uri;
        }

        Meters meters(int method, int status, boolean whole, Class<?> failure) {
            // status: 0..999 in 10 bits; whether the answer was whole; the method's index above them
            int key = method << 11 | (whole ? 1 << 10 : 0) | Math.clamp(status, 0, 1023);
            Slot[] table = slots;
            int mask = table.length - 1;
            for (int i = hash(key, failure) & mask; ; i = (i + 1) & mask) {
                Slot slot = table[i];
                if (slot == null) {
                    return add(key, method, status, whole, failure);
                }
                if (slot.key == key && slot.failure == failure) {
                    return slot.meters;
                }
            }
        }

        private static int hash(int key, Class<?> failure) {
            int h = key * 0x9E3779B9 ^ (failure == null ? 0 : System.identityHashCode(failure));
            return h ^ (h >>> 16);
        }

        private synchronized Meters add(int key, int method, int status, boolean whole, Class<?> failure) {
            Slot[] table = slots;
            int mask = table.length - 1;
            for (int i = hash(key, failure) & mask; table[i] != null; i = (i + 1) & mask) {
                if (table[i].key == key && table[i].failure == failure) {
                    return table[i].meters;   // another thread added it first
                }
            }
            Tags tags = common.and(
                    Tag.of("method", METHODS[method]),
                    Tag.of("uri", uri),
                    Tag.of("status", status == 0 ? UNKNOWN : Integer.toString(status)),
                    Tag.of("outcome", outcome(status, whole)),
                    Tag.of("exception", exception(failure)));
            Meters meters = new Meters(
                    Timer.builder(REQUESTS).description("HTTP server exchanges, to the answer's last byte written")
                            .tags(tags).register(registry),
                    DistributionSummary.builder(REQUEST_SIZE).description("Request body bytes received")
                            .baseUnit(BaseUnits.BYTES).tags(tags).register(registry),
                    DistributionSummary.builder(RESPONSE_SIZE).description("Response body bytes sent")
                            .baseUnit(BaseUnits.BYTES).tags(tags).register(registry));
            Slot[] next = (size + 1) * 2 > table.length ? new Slot[table.length * 2] : table.clone();
            if (next.length != table.length) {
                for (Slot s : table) {
                    if (s != null) {
                        put(next, s);
                    }
                }
            }
            put(next, new Slot(key, failure, meters));
            size++;
            slots = next;
            return meters;
        }

        private static void put(Slot[] table, Slot slot) {
            int mask = table.length - 1;
            int i = hash(slot.key, slot.failure) & mask;
            while (table[i] != null) {
                i = (i + 1) & mask;
            }
            table[i] = slot;
        }
    }
}
