// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.EnumMap;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * The shared conformance suite, black-box, against a server that already runs at
 * {@value #TARGET_PARAMETER} ({@code HOST:PORT}): a Spindle server or a reference, whatever it is
 * written in. It starts no server. The target and {@value #TLS_PARAMETER} ({@code true}: every case
 * over TLS, trusting whatever certificate the target presents) are JUnit configuration parameters,
 * so a launcher request or a {@code -D} system property sets them; without a target the class is
 * skipped. {@link ConformanceCheck} runs it and writes one line per case.
 *
 * <p>The target is held to the whole contract on the benchmark app's routes: no deviations are
 * declared, so a server that answers bad input otherwise than RFC 9112 and the contract say fails
 * those cases. Skipped, each with its reason: what needs a router, configured timeouts or a
 * connection limit ({@link #lacks()}), every case that starts a server of its own, and the few in
 * {@link #SKIPPED}.
 */
@ExtendWith(NetworkConformanceSuite.Target.class)
public class NetworkConformanceSuite extends HttpConformanceSuite {
    /** {@code HOST:PORT} of the running server ({@code [v6 address]:PORT} for IPv6). */
    public static final String TARGET_PARAMETER = "spindle.conformance.target";
    /** {@code true}: the target speaks HTTPS. */
    public static final String TLS_PARAMETER = "spindle.conformance.tls";
    /** {@code true}: the target speaks HTTP/2 (h2c with prior knowledge, or h2 by ALPN over TLS), so the HTTP/2 sections run. */
    public static final String H2_PARAMETER = "spindle.conformance.h2";
    /** Epoch milliseconds after which cases not yet started are skipped: the time budget of a check. */
    public static final String DEADLINE_PARAMETER = "spindle.conformance.deadline";

    /** Cases of the suite not run against a target, by test method name, with the reason. */
    static final Map<String, String> SKIPPED = Map.of(
            "knownDeviationsNameRealCases", "checks the suite's own declarations, not the server",
            "idleKeepAliveAndTricklingConnectionsDoNotStarveALegitimateClient", "holds 2,300 connections open for "
                    + "seconds by design, and servers with a bounded set of threads are exempt from it by design, "
                    + "which a check from outside cannot tell");

    private static final String STARTS_ITS_OWN = "starts a server of its own (another configuration, router or "
            + "downstream), which a check of a running server cannot do";

    private String targetHost;
    private int targetPort;
    private boolean tls;
    private boolean h2;

    /** Where the target is, from the configuration parameters; called before any case runs. */
    void target(String hostAndPort, boolean overTls, boolean http2) {
        h2 = http2;
        int colon = hostAndPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostAndPort.length() - 1) {
            throw new IllegalArgumentException(TARGET_PARAMETER + " must be HOST:PORT, not '" + hostAndPort + "'");
        }
        String host = hostAndPort.substring(0, colon);
        targetHost = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            targetPort = Integer.parseInt(hostAndPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(TARGET_PARAMETER + " has no port number: '" + hostAndPort + "'", e);
        }
        if (targetPort < 1 || targetPort > 65535) {
            throw new IllegalArgumentException(TARGET_PARAMETER + " has a port out of range: '" + hostAndPort + "'");
        }
        tls = overTls;
    }

    @Override
    protected String host() {
        return targetHost;
    }

    @Override
    protected boolean overTls() {
        return tls;
    }

    /** Whether the target was declared to speak HTTP/2 ({@link #H2_PARAMETER}); a server of unknown make is not assumed to. */
    @Override
    protected boolean speaksHttp2() {
        return h2;
    }

    @Override
    protected SSLContext clientTls() {
        return TrustAll.CONTEXT;
    }

    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = new EnumMap<>(Feature.class);
        lacks.put(Feature.CUSTOM_ROUTES, "the target serves the benchmark app's fixed routes, not a router of the case's");
        lacks.put(Feature.TIMEOUTS, "the target's timeouts are its own configuration, not the case's");
        lacks.put(Feature.CONNECTION_LIMIT, "the target's connection limit is its own configuration, not the case's");
        return lacks;
    }

    /** A server that answers its error and closes does so at once: 1 s is plenty, and one that never closes costs 1 s a case. */
    @Override
    protected int closeWaitMillis() {
        return 1_000;
    }

    /** The thread count that case samples is this JVM's, not the target's. */
    @Override
    protected boolean holdsNoThreadWhileWaiting() {
        return false;
    }

    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return Assumptions.abort(STARTS_ITS_OWN);
    }

    /** The target, once a connection to it succeeds: a failure here fails the class, not each case. */
    @Override
    protected HttpServer serverUnderTest() throws IOException {
        InetSocketAddress address = new InetSocketAddress(targetHost, targetPort);
        if (address.isUnresolved()) {
            throw new UnknownHostException("cannot resolve the target host " + targetHost);
        }
        try (Socket probe = new Socket()) {
            probe.connect(address, 5000);
        } catch (IOException e) {
            throw new IOException("cannot connect to the target " + targetHost + ":" + targetPort + ": " + e.getMessage(), e);
        }
        return new RunningTarget(address);
    }

    /** A server this suite does not own: starting and closing it leave it as it is. */
    private record RunningTarget(InetSocketAddress address) implements HttpServer {
        @Override
        public HttpServer start() {
            return this;
        }

        @Override
        public void close() {
        }

        @Override
        public void awaitTermination() {
        }
    }

    /** Reads the target from the configuration; skips the cases in {@link #SKIPPED}, and every case once the deadline has passed. */
    static final class Target implements TestInstancePostProcessor, ExecutionCondition {
        @Override
        public void postProcessTestInstance(Object instance, ExtensionContext context) {
            if (!(instance instanceof NetworkConformanceSuite suite)) {
                // the nested HTTP/2 section: it reaches the target through its enclosing suite, already set
                return;
            }
            String target = context.getConfigurationParameter(TARGET_PARAMETER).orElseThrow();
            boolean overTls = context.getConfigurationParameter(TLS_PARAMETER).map(Boolean::parseBoolean).orElse(false);
            boolean h2 = context.getConfigurationParameter(H2_PARAMETER).map(Boolean::parseBoolean).orElse(false);
            suite.target(target.strip(), overTls, h2);
        }

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (context.getConfigurationParameter(TARGET_PARAMETER).filter(t -> !t.isBlank()).isEmpty()) {
                return ConditionEvaluationResult.disabled("no target: set " + TARGET_PARAMETER + "=HOST:PORT");
            }
            if (context.getTestMethod().isPresent() && context.getConfigurationParameter(DEADLINE_PARAMETER)
                    .map(Long::parseLong).filter(deadline -> System.currentTimeMillis() > deadline).isPresent()) {
                return ConditionEvaluationResult.disabled("not run: the check's time budget was spent before this case");
            }
            String reason = context.getTestMethod().map(m -> SKIPPED.get(m.getName())).orElse(null);
            return reason == null ? ConditionEvaluationResult.enabled("runs against the target")
                    : ConditionEvaluationResult.disabled(reason);
        }
    }

    /** A client context that accepts any certificate: the check judges HTTP, not the target's key. */
    private static final class TrustAll extends X509ExtendedTrustManager {
        static final SSLContext CONTEXT = context();

        private static SSLContext context() {
            try {
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, new TrustManager[] {new TrustAll()}, null);
                return context;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot make a TLS client context: " + e, e);
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
