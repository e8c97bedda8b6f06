// SPDX-License-Identifier: Apache-2.0
package dev.spindle.opentelemetry;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.ExchangeListener;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongUpDownCounter;
import io.opentelemetry.api.metrics.Meter;

/**
 * The HTTP server metrics of every exchange, refusals before routing included (they reach
 * listeners, not filters): {@code http.server.active_requests} up when an exchange starts and down
 * when it ends, {@code http.server.request.duration} recorded once when it ends.
 */
final class ServerMetrics implements ExchangeListener {
    private static final double NANOS_PER_SECOND = 1e9;

    private final DoubleHistogram duration;
    private final LongUpDownCounter active;
    private final String scheme;
    /** The attributes of {@code http.server.active_requests} by method index: method and scheme alone. */
    private final Attributes[] activeAttributes = new Attributes[Semconv.METHOD_VALUES.length];

    ServerMetrics(Meter meter, String scheme) {
        this.scheme = scheme;
        this.duration = meter.histogramBuilder(Semconv.DURATION_METRIC)
                .setUnit("s")
                .setDescription("Duration of HTTP server requests.")
                .setExplicitBucketBoundariesAdvice(Semconv.DURATION_BUCKETS)
                .build();
        this.active = meter.upDownCounterBuilder(Semconv.ACTIVE_REQUESTS_METRIC)
                .setUnit("{request}")
                .setDescription("Number of active HTTP server requests.")
                .build();
        for (int i = 0; i < activeAttributes.length; i++) {
            activeAttributes[i] = Attributes.of(Semconv.HTTP_REQUEST_METHOD, Semconv.METHOD_VALUES[i], Semconv.URL_SCHEME, scheme);
        }
    }

    @Override
    public void exchangeStarted(String method, String protocol) {
        active.add(1, activeAttributes[Semconv.methodIndex(method)]);
    }

    @Override
    public void exchangeEnded(ExchangeEnd end) {
        int method = Semconv.methodIndex(end.method());
        active.add(-1, activeAttributes[method]);
        AttributesBuilder attributes = Attributes.builder()
                .put(Semconv.HTTP_REQUEST_METHOD, Semconv.METHOD_VALUES[method])
                .put(Semconv.URL_SCHEME, scheme)
                .put(Semconv.NETWORK_PROTOCOL_VERSION, Semconv.protocolVersion(end.protocol()));
        if (end.status() > 0) {
            attributes.put(Semconv.HTTP_RESPONSE_STATUS_CODE, end.status());
        }
        if (end.route() != null) {
            attributes.put(Semconv.HTTP_ROUTE, end.route());
        }
        String errorType = Semconv.errorType(end);
        if (errorType != null) {
            attributes.put(Semconv.ERROR_TYPE, errorType);
        }
        duration.record(end.durationNanos() / NANOS_PER_SECOND, attributes.build());
    }
}
