// SPDX-License-Identifier: Apache-2.0
package dev.spindle.opentelemetry;

import dev.spindle.core.Client;
import dev.spindle.core.ClientInterceptor;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;

/** Writes the caller's current context ({@code traceparent}, {@code tracestate}, …) into each request the client sends. */
final class TraceContextInjector implements ClientInterceptor {
    private static final TextMapSetter<Client.RequestBuilder> HEADERS = (carrier, key, value) -> {
        if (carrier != null) {
            carrier.header(key, value);
        }
    };

    private final TextMapPropagator propagator;

    TraceContextInjector(TextMapPropagator propagator) {
        this.propagator = propagator;
    }

    @Override
    public void beforeSend(Client.RequestBuilder request) {
        propagator.inject(Context.current(), request, HEADERS);
    }
}
