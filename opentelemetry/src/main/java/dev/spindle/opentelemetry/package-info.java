// SPDX-License-Identifier: Apache-2.0
/**
 * OpenTelemetry tracing and metrics for Spindle, after the stable HTTP semantic conventions:
 * {@link dev.spindle.opentelemetry.SpindleTelemetry} makes a server span per exchange (a
 * {@link dev.spindle.core.Filter}), records {@code http.server.request.duration} and
 * {@code http.server.active_requests} for every exchange (an {@link dev.spindle.core.ExchangeListener}),
 * and writes the current trace context into the requests Spindle's client sends (a
 * {@link dev.spindle.core.ClientInterceptor}).
 */
package dev.spindle.opentelemetry;
