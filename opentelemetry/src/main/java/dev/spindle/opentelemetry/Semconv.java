// SPDX-License-Identifier: Apache-2.0
package dev.spindle.opentelemetry;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.Method;
import io.opentelemetry.api.common.AttributeKey;
import java.util.List;

/**
 * What the stable HTTP semantic conventions name, computed once: the attribute keys, the
 * normalized method values, the server metrics' names and buckets, and the rules shared by spans
 * and metrics (the method, the protocol version, {@code error.type}).
 */
final class Semconv {
    static final AttributeKey<String> HTTP_REQUEST_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> HTTP_REQUEST_METHOD_ORIGINAL = AttributeKey.stringKey("http.request.method_original");
    static final AttributeKey<Long> HTTP_RESPONSE_STATUS_CODE = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> HTTP_ROUTE = AttributeKey.stringKey("http.route");
    static final AttributeKey<String> URL_SCHEME = AttributeKey.stringKey("url.scheme");
    static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    static final AttributeKey<String> URL_QUERY = AttributeKey.stringKey("url.query");
    static final AttributeKey<String> NETWORK_PROTOCOL_VERSION = AttributeKey.stringKey("network.protocol.version");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> USER_AGENT_ORIGINAL = AttributeKey.stringKey("user_agent.original");

    static final String DURATION_METRIC = "http.server.request.duration";
    static final String ACTIVE_REQUESTS_METRIC = "http.server.active_requests";
    /** The conventions' advice for {@code http.server.request.duration}, in seconds. */
    static final List<Double> DURATION_BUCKETS = List.of(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
            5.0, 7.5, 10.0);

    /** What {@code error.type} and {@code http.request.method} say when nothing more precise is known. */
    static final String OTHER = "_OTHER";

    /** {@link #methodIndex} of a method the conventions do not know by name. */
    static final int OTHER_METHOD = Method.OTHER.ordinal();
    /** {@code http.request.method} by {@link #methodIndex}: the known methods, then {@code _OTHER}. */
    static final String[] METHOD_VALUES = new String[Method.values().length];
    /** The first word of a span name by {@link #methodIndex}: the method, or {@code HTTP} for {@code _OTHER}. */
    static final String[] SPAN_NAME_METHODS = new String[Method.values().length];
    private static final String[] SERVER_ERROR_STATUS = new String[100];

    static {
        for (Method m : Method.values()) {
            METHOD_VALUES[m.ordinal()] = m == Method.OTHER ? OTHER : m.name();
            SPAN_NAME_METHODS[m.ordinal()] = m == Method.OTHER ? "HTTP" : m.name();
        }
        for (int i = 0; i < SERVER_ERROR_STATUS.length; i++) {
            SERVER_ERROR_STATUS[i] = Integer.toString(500 + i);
        }
    }

    private Semconv() {
    }

    /**
     * The index of a method in {@link #METHOD_VALUES}: one of RFC 9110's and {@code PATCH}, which
     * {@link Method} names (the conventions' list), else {@link #OTHER_METHOD}.
     */
    static int methodIndex(Method method) {
        return method == null ? OTHER_METHOD : method.ordinal();
    }

    /** As {@link #methodIndex(Method)}, for a method token as sent ({@code ""} when none was read). */
    static int methodIndex(String method) {
        Method m = switch (method) {
            case "GET" -> Method.GET;
            case "HEAD" -> Method.HEAD;
            case "POST" -> Method.POST;
            case "PUT" -> Method.PUT;
            case "DELETE" -> Method.DELETE;
            case "PATCH" -> Method.PATCH;
            case "OPTIONS" -> Method.OPTIONS;
            case "TRACE" -> Method.TRACE;
            case "CONNECT" -> Method.CONNECT;
            default -> Method.OTHER;
        };
        return m.ordinal();
    }

    /** {@code network.protocol.version} of a Spindle protocol name: {@code 1.1}, {@code 1.0} or {@code 2}. */
    static String protocolVersion(String protocol) {
        return switch (protocol) {
            case "HTTP/2" -> "2";
            case "HTTP/1.0" -> "1.0";
            default -> "1.1";
        };
    }

    /**
     * The {@code error.type} of an exchange, or null when it succeeded: for an exchange that ended
     * without its whole answer, the failure's class or {@code _OTHER}; for a server error (5xx, or a
     * status a client cannot interpret), the status code as a string. A 4xx is the client's error, not
     * the server's: none.
     */
    static String errorType(ExchangeEnd end) {
        int status = end.status();
        if (end.outcome() != ExchangeEnd.Outcome.COMPLETE || status <= 0) {
            Throwable failure = end.failure();
            return failure != null ? failure.getClass().getName() : OTHER;
        }
        if (status < 500) {
            return null;
        }
        return status < 600 ? SERVER_ERROR_STATUS[status - 500] : Integer.toString(status);
    }
}
