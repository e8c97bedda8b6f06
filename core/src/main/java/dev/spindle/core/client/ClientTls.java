// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.tls.TlsClientConnection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * How a client speaks TLS: the context whose trust managers judge servers (and whose key managers
 * present a client certificate), and whether the certificate must name the host. One per client:
 * the JDK keeps TLS sessions per context and peer, so a new connection to a server the client
 * spoke to resumes its session.
 *
 * @param context the initialised context
 * @param verifyHostname whether the server's certificate must name the host the address gave
 *        (the JDK's {@code HTTPS} endpoint identification)
 */
public record ClientTls(SSLContext context, boolean verifyHostname) {
    /** Checks the context. */
    public ClientTls {
        Objects.requireNonNull(context, "context");
    }

    /**
     * The JDK's: its default context (the {@code cacerts} trust store, no client certificate), host names checked.
     *
     * @return the JDK's defaults
     * @throws IllegalStateException if the JDK has no default context
     */
    public static ClientTls jdkDefaults() {
        try {
            return new ClientTls(SSLContext.getDefault(), true);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no default TLS context", e);
        }
    }

    /**
     * A client engine for {@code host}: SNI names the host unless it is an IP literal (RFC 6066 3),
     * ALPN offers {@code protocols}.
     *
     * @param host the host the address gave (an IPv6 literal without brackets)
     * @param port the port
     * @param protocols the ALPN protocols to offer, most preferred first
     * @return a new engine in client mode
     */
    public SSLEngine engine(String host, int port, List<String> protocols) {
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        if (verifyHostname) {
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        if (!Ascii.isIpLiteral(host)) {
            p.setServerNames(List.of(new SNIHostName(host)));
        }
        p.setApplicationProtocols(protocols.toArray(String[]::new));
        engine.setSSLParameters(p);
        return engine;
    }

    /**
     * TLS around {@code plain}, a connection to {@code host}.
     *
     * @param plain the connection the plaintext goes to, connected once the handshake is done
     * @param host the host the address gave
     * @param port the port
     * @param protocols the ALPN protocols to offer
     * @param handshakeTimeout the most the connect and the handshake take together; zero for no limit
     * @return the connection a strategy drives
     */
    public OutboundConnection around(OutboundConnection plain, String host, int port, List<String> protocols, Duration handshakeTimeout) {
        return new TlsClientConnection(plain, engine(host, port, protocols), host, handshakeTimeout);
    }
}
