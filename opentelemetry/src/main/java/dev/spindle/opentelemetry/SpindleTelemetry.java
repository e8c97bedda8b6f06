// SPDX-License-Identifier: Apache-2.0
package dev.spindle.opentelemetry;

import dev.spindle.core.ClientInterceptor;
import dev.spindle.core.ExchangeListener;
import dev.spindle.core.Filter;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Objects;

/**
 * OpenTelemetry for a Spindle server and client, after the stable HTTP semantic conventions.
 * Create one per {@link OpenTelemetry} and register its parts:
 *
 * <pre>{@code
 * SpindleTelemetry telemetry = SpindleTelemetry.create(openTelemetry);
 * Router routes = Router.builder()
 *         .filter(telemetry.filter())        // first: its span covers the other filters
 *         .listener(telemetry.listener())
 *         .get("/users/{id}", handler)
 *         .build();
 * Client client = Client.create(ClientConfig.defaults().interceptor(telemetry.clientInterceptor()));
 * }</pre>
 *
 * <ul>
 *   <li>{@link #filter()}: a {@link io.opentelemetry.api.trace.SpanKind#SERVER SERVER} span for each
 *       exchange that reaches routing, named {@code "GET /users/{id}"} after the route's pattern
 *       ({@code "GET"} alone when no route matched), child of the context the request carries
 *       (W3C {@code traceparent} with the default propagators: those of {@code openTelemetry}).
 *       It is current while the rest of the exchange runs on the filter's thread: the whole of an
 *       inline or blocking handler, an asynchronous one until it returns its stage (wrap what runs
 *       later with {@code Context.current().wrap(...)}), so the handler's own spans and the
 *       requests it sends through an intercepted client are its children. It ends when the
 *       exchange ends, after the answer's last byte was written, with the status actually sent (a
 *       timed-out handler's span ends with the 503 the client got); its status is
 *       {@link io.opentelemetry.api.trace.StatusCode#ERROR ERROR} for a 5xx or an exchange cut short
 *       ({@code error.type} says which), never for a 4xx. Attributes: {@code http.request.method}
 *       ({@code _OTHER} and {@code http.request.method_original} for other methods),
 *       {@code url.scheme}, {@code url.path}, {@code url.query} (signed-URL credentials redacted),
 *       {@code http.route}, {@code network.protocol.version}, {@code user_agent.original},
 *       {@code http.response.status_code}, {@code error.type}; a failure is recorded as the span's
 *       exception event.</li>
 *   <li>{@link #listener()}: {@code http.server.request.duration} (a histogram in seconds, with the
 *       conventions' bucket boundaries) and {@code http.server.active_requests} (an up-down counter by
 *       {@code http.request.method} and {@code url.scheme}) for every exchange, once, the requests the
 *       connection refuses before routing (400, 414, 431) included; the duration runs from the
 *       request's head received to the answer's last byte written.</li>
 *   <li>{@link #clientInterceptor()}: writes the caller's current context into each request a
 *       {@link dev.spindle.core.Client} sends ({@code traceparent}, and whatever else the
 *       propagators carry).</li>
 * </ul>
 *
 * <p>Thread-safe; the parts may be shared by any number of routers and clients.
 */
public final class SpindleTelemetry {
    /** The instrumentation scope of its tracer and meter. */
    public static final String INSTRUMENTATION_NAME = "dev.spindle.opentelemetry";

    private final ServerSpans filter;
    private final ServerMetrics listener;
    private final TraceContextInjector clientInterceptor;

    private SpindleTelemetry(OpenTelemetry openTelemetry, String scheme) {
        TextMapPropagator propagator = openTelemetry.getPropagators().getTextMapPropagator();
        this.filter = new ServerSpans(openTelemetry.getTracer(INSTRUMENTATION_NAME), propagator, scheme);
        this.listener = new ServerMetrics(openTelemetry.getMeter(INSTRUMENTATION_NAME), scheme);
        this.clientInterceptor = new TraceContextInjector(propagator);
    }

    /**
     * Telemetry for plain-HTTP servers ({@code url.scheme} {@code http}) through {@code openTelemetry}'s
     * tracer, meter and propagators.
     *
     * @param openTelemetry the application's OpenTelemetry (an SDK, or {@code GlobalOpenTelemetry.get()})
     * @return the telemetry
     */
    public static SpindleTelemetry create(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * A builder, for settings beside the defaults of {@link #create}.
     *
     * @param openTelemetry the application's OpenTelemetry
     * @return a builder
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /**
     * The filter that makes each exchange's server span; register it with
     * {@link dev.spindle.core.Router.Builder#filter} before the other filters.
     *
     * @return the filter, the same on every call
     */
    public Filter filter() {
        return filter;
    }

    /**
     * The listener that records the server metrics of every exchange; register it with
     * {@link dev.spindle.core.Router.Builder#listener}.
     *
     * @return the listener, the same on every call
     */
    public ExchangeListener listener() {
        return listener;
    }

    /**
     * The interceptor that writes the current trace context into the requests a client sends;
     * register it with {@link dev.spindle.core.ClientConfig#interceptor}.
     *
     * @return the interceptor, the same on every call
     */
    public ClientInterceptor clientInterceptor() {
        return clientInterceptor;
    }

    /** Settings of a {@link SpindleTelemetry}. Not thread-safe. */
    public static final class Builder {
        private final OpenTelemetry openTelemetry;
        private String scheme = "http";

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = openTelemetry;
        }

        /**
         * The {@code url.scheme} of the server's requests: {@code https} for a server with
         * {@link dev.spindle.core.ServerConfig#tls TLS}, else {@code http} (the default).
         *
         * @param scheme {@code http} or {@code https}
         * @return this builder
         * @throws IllegalArgumentException if {@code scheme} is neither
         */
        public Builder urlScheme(String scheme) {
            if (!"http".equals(scheme) && !"https".equals(scheme)) {
                throw new IllegalArgumentException("url.scheme must be http or https, got " + scheme);
            }
            this.scheme = scheme;
            return this;
        }

        /** {@return the telemetry, with these settings} */
        public SpindleTelemetry build() {
            return new SpindleTelemetry(openTelemetry, scheme);
        }
    }
}
