// SPDX-License-Identifier: Apache-2.0
/**
 * Micrometer metrics for Spindle's servers: {@link dev.spindle.micrometer.SpindleMetrics}, an
 * {@code ExchangeListener} that records the conventional {@code http.server.requests} timer by
 * route template, the body sizes, and gauges of open connections and of exchanges and HTTP/2
 * streams in flight, on any {@code MeterRegistry}.
 */
@SuppressWarnings("requires-transitive-automatic")   // Micrometer's jars are automatic modules (micrometer.core)
module dev.spindle.micrometer {
    // its API takes core's ExchangeListener role and Micrometer's MeterRegistry and Tag
    requires transitive dev.spindle.core;
    requires transitive micrometer.core;

    exports dev.spindle.micrometer;
}
