// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.TrustManagerFactory;

/**
 * The downstream of a reference's {@code /remote/{ms}} and {@code /remote-blocking/{ms}} routes, as
 * Spindle's app configures its own: the base address from {@value #PROPERTY}, and how long a call
 * may take beyond its {@code ms} from {@value #MARGIN_PROPERTY} (default 5 s). Each reference calls
 * it with its framework's own client and answers as Spindle's app does:
 *
 * <table>
 *   <caption>Answers of the remote routes</caption>
 *   <tr><th>case</th><th>answer</th></tr>
 *   <tr><td>downstream answers 200</td><td>200 with its body and content type</td></tr>
 *   <tr><td>{@code ms} not a number</td><td>400</td></tr>
 *   <tr><td>no downstream configured</td><td>503, the body {@link #unconfiguredMessage()}</td></tr>
 *   <tr><td>cannot connect, broken exchange, or a non-200 answer</td><td>502</td></tr>
 *   <tr><td>no answer within {@link #timeout(long)}</td><td>504</td></tr>
 * </table>
 *
 * @param base the downstream's base address without a trailing slash, or null when none is configured
 * @param margin how long a call may take beyond the {@code ms} it asks for
 */
public record RemoteDownstream(URI base, Duration margin) {
    /** The system property naming the downstream's base address, e.g. {@code http://127.0.0.1:8081}. */
    public static final String PROPERTY = "spindle.remote";
    /**
     * The system property naming the downstream of {@code /remote-tls/{ms}}, an {@code https://}
     * address; its certificate is trusted from {@value #TRUST_STORE_PROPERTY} where the client's
     * idiom takes a store, else from the JDK's default trust ({@code javax.net.ssl.trustStore}).
     */
    public static final String TLS_PROPERTY = "spindle.remoteTls";
    /** The PKCS12 trust store of the TLS downstream's certificate (the property Spindle's client reads too). */
    public static final String TRUST_STORE_PROPERTY = "spindle.client.trustStore";
    /** The password of {@value #TRUST_STORE_PROPERTY}. */
    public static final String TRUST_STORE_PASSWORD_PROPERTY = "spindle.client.trustStorePassword";
    /** The system property overriding the margin, in milliseconds (the conformance suite shortens it). */
    public static final String MARGIN_PROPERTY = "spindle.remote.marginMs";
    /** The margin when {@value #MARGIN_PROPERTY} is unset. */
    public static final Duration DEFAULT_MARGIN = Duration.ofSeconds(5);

    /**
     * The checked form.
     *
     * @throws IllegalArgumentException if {@code base} is not an http(s) address
     */
    public RemoteDownstream {
        if (base != null && !"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
            throw new IllegalArgumentException("downstream must be an http or https address: " + base);
        }
        if (margin == null || margin.isNegative()) {
            throw new IllegalArgumentException("margin must be zero or positive: " + margin);
        }
    }

    /**
     * Reads {@value #PROPERTY} and {@value #MARGIN_PROPERTY} now (a reference calls it when it starts).
     *
     * @return the configured downstream, unconfigured when the property is unset or blank
     * @throws IllegalArgumentException if a property is malformed
     */
    public static RemoteDownstream fromSystemProperties() {
        return fromSystemProperties(PROPERTY);
    }

    /**
     * Reads {@code property} (the base address) and {@value #MARGIN_PROPERTY} now.
     *
     * @param property {@value #PROPERTY}, or {@value #TLS_PROPERTY} for {@code /remote-tls/{ms}}'s downstream
     * @return the configured downstream, unconfigured when the property is unset or blank
     * @throws IllegalArgumentException if a property is malformed
     */
    public static RemoteDownstream fromSystemProperties(String property) {
        String raw = System.getProperty(property);
        URI base = null;
        if (raw != null && !raw.isBlank()) {
            String b = raw.trim();
            base = URI.create(b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
        }
        String marginMs = System.getProperty(MARGIN_PROPERTY);
        Duration margin = DEFAULT_MARGIN;
        if (marginMs != null && !marginMs.isBlank()) {
            try {
                margin = Duration.ofMillis(Long.parseLong(marginMs.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(MARGIN_PROPERTY + " must be a number of milliseconds: " + marginMs, e);
            }
        }
        return new RemoteDownstream(base, margin);
    }

    /** {@return whether a downstream is configured} */
    public boolean configured() {
        return base != null;
    }

    /**
     * The downstream's {@code /delay/{ms}} address.
     *
     * @param ms the delay to ask for
     * @return the address to call
     * @throws IllegalStateException if no downstream is configured
     */
    public URI delayUri(long ms) {
        if (base == null) {
            throw new IllegalStateException(unconfiguredMessage());
        }
        return URI.create(base + "/delay/" + ms);
    }

    /**
     * The downstream's {@code /delay/{ms}} path and query, for clients given host and port apart.
     *
     * @param ms the delay to ask for
     * @return {@code /delay/<ms>} under the base's own path
     */
    public String delayPath(long ms) {
        String path = base == null ? "" : base.getRawPath();
        return (path == null ? "" : path) + "/delay/" + ms;
    }

    /**
     * How long a call asking for {@code ms} may take before it is answered 504.
     *
     * @param ms the delay asked for
     * @return {@code ms} plus the margin
     */
    public Duration timeout(long ms) {
        return margin.plusMillis(ms);
    }

    /** {@return the 503 body when no downstream is configured, naming the property} */
    public static String unconfiguredMessage() {
        return "no downstream configured: start the server with -D" + PROPERTY + "=http://host:port";
    }

    /** {@return the 503 body of {@code /remote-tls/{ms}} when no TLS downstream is configured} */
    public static String unconfiguredTlsMessage() {
        return "no TLS downstream configured: start the server with -D" + TLS_PROPERTY + "=https://host:port";
    }

    /**
     * The trust store {@value #TRUST_STORE_PROPERTY} names, loaded (PKCS12), for clients that take
     * a {@link TrustManagerFactory}.
     *
     * @return the trust managers' factory, or null when the property is unset (the JDK's default trust then)
     * @throws IllegalArgumentException if the store cannot be read
     */
    public static TrustManagerFactory trustFromSystemProperties() {
        String file = System.getProperty(TRUST_STORE_PROPERTY);
        if (file == null || file.isBlank()) {
            return null;
        }
        char[] password = System.getProperty(TRUST_STORE_PASSWORD_PROPERTY, "").toCharArray();
        try (InputStream in = Files.newInputStream(Path.of(file.trim()))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            return trust;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(TRUST_STORE_PROPERTY + " " + file + " cannot be read: " + e.getMessage(), e);
        }
    }
}
