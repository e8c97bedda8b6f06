// SPDX-License-Identifier: Apache-2.0
/**
 * OpenTelemetry for Spindle: server spans and the HTTP server metrics of OpenTelemetry's semantic
 * conventions for a {@code Router}, and the W3C trace context read on requests and written by
 * Spindle's {@code Client}. Its one entry point is {@code dev.spindle.opentelemetry.SpindleTelemetry}.
 * It needs the OpenTelemetry API alone; the application brings the SDK (or an agent) and its exporters.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.spindle.opentelemetry {
    // SpindleTelemetry takes an OpenTelemetry and hands out core's Filter, ExchangeListener and ClientInterceptor
    requires transitive dev.spindle.core;
    requires transitive io.opentelemetry.api;
    requires io.opentelemetry.context;

    exports dev.spindle.opentelemetry;
}
