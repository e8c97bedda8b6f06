// SPDX-License-Identifier: Apache-2.0
package dev.spindle.opentelemetry;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.Filter;
import dev.spindle.core.Request;
import dev.spindle.core.Response;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server span of each exchange that reaches routing: started from the context the request
 * carries, current while the rest of the exchange runs on this thread, ended when the exchange
 * ends ({@link Request#onEnd}) with what was actually sent.
 */
final class ServerSpans implements Filter {
    private final Tracer tracer;
    private final TextMapPropagator propagator;
    private final String scheme;
    /** Span names {@code "GET /users/{id}"} by method index, then route pattern: as many as routes and methods. */
    @SuppressWarnings("unchecked")
    private final ConcurrentHashMap<String, String>[] names = new ConcurrentHashMap[Semconv.METHOD_VALUES.length];

    ServerSpans(Tracer tracer, TextMapPropagator propagator, String scheme) {
        this.tracer = tracer;
        this.propagator = propagator;
        this.scheme = scheme;
        for (int i = 0; i < names.length; i++) {
            names[i] = new ConcurrentHashMap<>();
        }
    }

    @Override
    public CompletionStage<?> filter(Request request, Response response, Chain chain) {
        // a request is an entry point: its only parent is the one it carries, never what a thread has current
        Context parent = propagator.extract(Context.root(), request, RequestHeaders.INSTANCE);
        int method = Semconv.methodIndex(request.method());
        String route = request.routePattern();
        SpanBuilder builder = tracer.spanBuilder(spanName(method, route))
                .setParent(parent)
                .setSpanKind(SpanKind.SERVER)
                .setAttribute(Semconv.HTTP_REQUEST_METHOD, Semconv.METHOD_VALUES[method])
                .setAttribute(Semconv.URL_SCHEME, scheme)
                .setAttribute(Semconv.URL_PATH, request.path())
                .setAttribute(Semconv.NETWORK_PROTOCOL_VERSION, Semconv.protocolVersion(request.version()));
        if (method == Semconv.OTHER_METHOD) {
            builder.setAttribute(Semconv.HTTP_REQUEST_METHOD_ORIGINAL, request.methodName());
        }
        if (route != null) {
            builder.setAttribute(Semconv.HTTP_ROUTE, route);
        }
        String query = request.query();
        if (query != null) {
            builder.setAttribute(Semconv.URL_QUERY, QueryRedaction.redact(query));
        }
        String userAgent = request.header("User-Agent");
        if (userAgent != null) {
            builder.setAttribute(Semconv.USER_AGENT_ORIGINAL, userAgent);
        }
        Span span = builder.startSpan();
        // registered before proceeding: called once, with the status sent, however the handler ends
        request.onEnd(end -> end(span, end));
        try (Scope ignored = parent.with(span).makeCurrent()) {
            return chain.proceed();
        }
    }

    private String spanName(int method, String route) {
        String prefix = Semconv.SPAN_NAME_METHODS[method];
        if (route == null) {
            return prefix;
        }
        ConcurrentHashMap<String, String> byRoute = names[method];
        String name = byRoute.get(route);
        return name != null ? name : byRoute.computeIfAbsent(route, r -> prefix + " " + r);
    }

    private static void end(Span span, ExchangeEnd end) {
        if (end.status() > 0) {
            span.setAttribute(Semconv.HTTP_RESPONSE_STATUS_CODE, end.status());
        }
        String errorType = Semconv.errorType(end);
        if (errorType != null) {
            // a server span is an error for a 5xx or an exchange cut short, never for a 4xx
            span.setAttribute(Semconv.ERROR_TYPE, errorType);
            span.setStatus(StatusCode.ERROR);
            if (end.failure() != null) {
                span.recordException(end.failure());
            }
        }
        span.end();
    }

    /** A request's header fields, as the propagator reads them. */
    enum RequestHeaders implements TextMapGetter<Request> {
        INSTANCE;

        @Override
        public Iterable<String> keys(Request carrier) {
            List<String> keys = new ArrayList<>(carrier.headerCount());
            for (int i = 0; i < carrier.headerCount(); i++) {
                keys.add(carrier.headerName(i));
            }
            return keys;
        }

        @Override
        public String get(Request carrier, String key) {
            return carrier == null ? null : carrier.header(key);
        }
    }
}
