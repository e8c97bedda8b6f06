package dev.spindle.netty;

import dev.spindle.conformance.HttpConformanceSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * The core conformance suite for {@link NettyServer} on one transport, unchanged, except for the
 * bad-input cases where Netty's own HTTP codec knowingly differs from the Spindle contract: those
 * are declared in {@link #knownDeviations()} with Netty's behaviour and the reason, and the suite
 * holds Netty to exactly that behaviour, so a Netty upgrade that changes it makes the build notice.
 */
@ExtendWith(NettyConformanceSuite.TransportAvailable.class)
abstract class NettyConformanceSuite extends HttpConformanceSuite {
    /** The transport a concrete test class runs the suite on. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface OnTransport {
        NettyTransport value();
    }

    private static final Map<String, Deviation> DEVIATIONS = Map.of(
            "obs-fold", new Deviation(200, false,
                    "Netty's HttpObjectDecoder unfolds obsolete line folding (the continuation is appended to the "
                            + "previous value with one space) instead of rejecting it; RFC 9112 5.2 allows a server "
                            + "to replace obs-fold with SP"));

    @Override
    protected Map<String, Deviation> knownDeviations() {
        return DEVIATIONS;
    }

    @Override
    protected Map<Feature, String> lacks() {
        return Map.of(Feature.QUEUED_CONNECTIONS_AT_CLOSE, "a connection whose channel is initialised after close() began "
                + "(accepted by the boss, registered with a busy event loop) is answered 503 by Rejecting, not served under "
                + "the drain");
    }

    private final NettyTransport transport = getClass().getAnnotation(OnTransport.class).value();

    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new NettyServer(config, router, transport);
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
}
