// SPDX-License-Identifier: Apache-2.0
package dev.spindle.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.ExchangeEnd.Outcome;
import dev.spindle.core.HttpException;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The tags each kind of exchange end is recorded under, and the gauges, without a server. */
class SpindleMetricsTest {
    /** An exchange's end as core hands it over. */
    record End(String method, String target, String route, String protocol, int status, long responseBodyBytes,
               long requestBodyBytes, long durationNanos, Outcome outcome, Throwable failure) implements ExchangeEnd {
    }

    private static End end(String method, String route, int status, Outcome outcome, Throwable failure) {
        return new End(method, "/raw/path/42", route, "HTTP/1.1", status, 12, 3, 1_000_000, outcome, failure);
    }

    /** An end and the tags it must be recorded under. */
    record Case(String name, ExchangeEnd end, String method, String uri, String status, String outcome, String exception) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        Outcome ok = Outcome.COMPLETE;
        return List.of(
                new Case("routed", end("GET", "/users/{id}", 200, ok, null), "GET", "/users/{id}", "200", "SUCCESS", "none"),
                new Case("an empty template is root", end("GET", "", 200, ok, null), "GET", "root", "200", "SUCCESS", "none"),
                new Case("no route, 404", end("GET", null, 404, ok, new HttpException(404, "x")),
                        "GET", "NOT_FOUND", "404", "CLIENT_ERROR", "HttpException"),
                new Case("no route, 3xx", end("GET", null, 308, ok, null), "GET", "REDIRECTION", "308", "REDIRECTION", "none"),
                new Case("no route, 405", end("PUT", null, 405, ok, null), "PUT", "UNKNOWN", "405", "CLIENT_ERROR", "none"),
                new Case("an upgrade's 101", end("GET", "/ws", 101, ok, null), "GET", "/ws", "101", "INFORMATIONAL", "none"),
                new Case("a handler's failure", end("POST", "/items", 500, ok, new UncheckedIOException(new java.io.IOException("disk"))),
                        "POST", "/items", "500", "SERVER_ERROR", "UncheckedIOException"),
                new Case("an anonymous exception class", end("GET", "/a", 500, ok, new RuntimeException() {
                    private static final long serialVersionUID = 1L;
                }), "GET", "/a", "500", "SERVER_ERROR", SpindleMetricsTest.class.getName() + "$1"),
                new Case("the timeout's 503", end("GET", "/slow", 503, ok, new HttpException(503, "late")),
                        "GET", "/slow", "503", "SERVER_ERROR", "HttpException"),
                new Case("cut short after the head", end("GET", "/big", 200, Outcome.ABORTED, null),
                        "GET", "/big", "200", "UNKNOWN", "none"),
                new Case("cut short before the head", end("GET", "/big", 0, Outcome.ABORTED, null),
                        "GET", "/big", "UNKNOWN", "UNKNOWN", "none"),
                new Case("an h2 stream refused", new End("", "", null, "HTTP/2", 0, 0, 0, 0, Outcome.REFUSED, null),
                        "UNKNOWN", "UNKNOWN", "UNKNOWN", "UNKNOWN", "none"),
                new Case("a head refused", end("", null, 431, ok, new HttpException(431, "big")),
                        "UNKNOWN", "UNKNOWN", "431", "CLIENT_ERROR", "HttpException"),
                new Case("an extension method", end("PROPFIND", "/dav/{path...}", 207, ok, null),
                        "_OTHER", "/dav/{path...}", "207", "SUCCESS", "none"),
                new Case("a lower-case method is not GET", end("get", "/users/{id}", 200, ok, null),
                        "_OTHER", "/users/{id}", "200", "SUCCESS", "none"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void recordsAnEndUnderTheConventionsTags(Case c) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SpindleMetrics metrics = new SpindleMetrics(registry, Tags.of("server", "api"));
        metrics.exchangeStarted(c.end().method(), c.end().protocol());
        metrics.exchangeEnded(c.end());

        Map<String, String> expected = new TreeMap<>(Map.of("method", c.method(), "uri", c.uri(), "status", c.status(),
                "outcome", c.outcome(), "exception", c.exception(), "server", "api"));
        Timer timer = registry.get(SpindleMetrics.REQUESTS).timer();
        assertThat(tags(timer)).isEqualTo(expected);
        assertThat(timer.count()).isEqualTo(1);
        assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(c.end().durationNanos());
        DistributionSummary in = registry.get(SpindleMetrics.REQUEST_SIZE).summary();
        assertThat(tags(in)).isEqualTo(expected);
        assertThat(in.totalAmount()).isEqualTo(c.end().requestBodyBytes());
        assertThat(in.count()).isEqualTo(c.end().requestBodyBytes() > 0 ? 1 : 0);
        assertThat(registry.get(SpindleMetrics.RESPONSE_SIZE).summary().totalAmount()).isEqualTo(c.end().responseBodyBytes());
        assertThat(registry.get(SpindleMetrics.EXCHANGES_ACTIVE).gauge().value()).isZero();
        assertThat(registry.get(SpindleMetrics.STREAMS_ACTIVE).gauge().value()).isZero();
    }

    private static Map<String, String> tags(Meter meter) {
        return meter.getId().getTags().stream().collect(Collectors.toMap(Tag::getKey, Tag::getValue, (a, b) -> a, TreeMap::new));
    }

    @Test
    void anUnknownResponseSizeIsNotRecorded() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SpindleMetrics metrics = new SpindleMetrics(registry);
        metrics.exchangeStarted("GET", "HTTP/1.1");
        metrics.exchangeEnded(new End("GET", "/f", "/f", "HTTP/1.1", 200, -1, 0, 5, Outcome.ABORTED, null));
        assertThat(registry.get(SpindleMetrics.REQUESTS).timer().count()).isEqualTo(1);
        assertThat(registry.get(SpindleMetrics.RESPONSE_SIZE).summary().count()).isZero();
        assertThat(registry.get(SpindleMetrics.REQUEST_SIZE).summary().count()).as("no request body, no sample").isZero();
    }

    @Test
    void gaugesCountStartedExchangesAndStreamsUntilTheyEnd() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SpindleMetrics metrics = new SpindleMetrics(registry);
        metrics.exchangeStarted("GET", "HTTP/1.1");
        metrics.exchangeStarted("GET", "HTTP/2");
        metrics.exchangeStarted("", "HTTP/2");
        assertThat(registry.get(SpindleMetrics.EXCHANGES_ACTIVE).gauge().value()).isEqualTo(3);
        assertThat(registry.get(SpindleMetrics.STREAMS_ACTIVE).gauge().value()).isEqualTo(2);
        metrics.exchangeEnded(new End("GET", "/", "/", "HTTP/2", 200, 0, 0, 1, Outcome.COMPLETE, null));
        metrics.exchangeEnded(new End("", "", null, "HTTP/2", 0, 0, 0, 0, Outcome.REFUSED, null));
        assertThat(registry.get(SpindleMetrics.EXCHANGES_ACTIVE).gauge().value()).isEqualTo(1);
        assertThat(registry.get(SpindleMetrics.STREAMS_ACTIVE).gauge().value()).isZero();
        assertThat(registry.find(SpindleMetrics.CONNECTIONS).gauge()).as("no server bound").isNull();

        metrics.bindConnections(() -> 2).bindConnections(() -> 3);
        assertThat(registry.get(SpindleMetrics.CONNECTIONS).gauge().value()).as("the sum of the servers bound").isEqualTo(5);
    }

    @Test
    void everyCombinationIsItsOwnSeriesHoweverManyThereAre() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SpindleMetrics metrics = new SpindleMetrics(registry);
        List<Throwable> failures = List.of(new IllegalStateException(), new IllegalArgumentException(), new HttpException(400, "x"));
        List<String> methods = List.of("GET", "POST", "PUT", "QUERY", "");
        // 5 methods x 40 statuses x (no failure, 3 failures) x whole or not, twice over: the table grows many times
        for (int round = 0; round < 2; round++) {
            for (String method : methods) {
                for (int status = 100; status < 600; status += 25) {
                    for (int f = -1; f < failures.size(); f++) {
                        for (Outcome outcome : List.of(Outcome.COMPLETE, Outcome.ABORTED)) {
                            metrics.exchangeEnded(new End(method, "/r", "/r", "HTTP/1.1", status, 1, 0, 1, outcome,
                                    f < 0 ? null : failures.get(f)));
                        }
                    }
                }
            }
        }
        List<Timer> timers = List.copyOf(registry.get(SpindleMetrics.REQUESTS).timers());
        // QUERY and "" are each their own tag value (_OTHER, UNKNOWN); aborted ones share outcome UNKNOWN but not the status
        assertThat(timers).hasSize(5 * 20 * 4 * 2);
        assertThat(timers).allSatisfy(t -> assertThat(t.count()).as(t.getId().toString()).isEqualTo(2));
    }
}
