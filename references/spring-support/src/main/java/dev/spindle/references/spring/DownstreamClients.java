// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.spring;

import dev.spindle.references.support.RemoteDownstream;
import java.net.http.HttpClient;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.Http11SslContextSpec;
import reactor.netty.http.Http2SslContextSpec;
import reactor.netty.http.HttpProtocol;

/**
 * The downstream of a Spring reference's remote routes and the clients that call it, created when
 * the context starts and closed with it; an app imports it and supplies the context's one
 * {@link ReactorResourceFactory} (made by {@link #ownResources()}), whose event loops the
 * {@link WebClient} runs on.
 *
 * <p>Three {@link DownstreamCalls}: {@value #PLAIN} (the {@link Primary} one) to {@code -Dspindle.remote}
 * over HTTP/1.1; {@value #TLS} and {@value #H2} to {@code -Dspindle.remoteTls}, over HTTPS (HTTP/1.1)
 * and over HTTP/2 (h2 chosen by ALPN). Their TLS trusts the PKCS12 store of
 * {@code -Dspindle.client.trustStore} (else the JDK's default trust): Reactor Netty's client as its
 * idiom has it, an {@code SslContext} from {@link Http11SslContextSpec} or {@link Http2SslContextSpec}
 * with that store's trust managers; the JDK client under {@code RestClient} with an {@link SSLContext} of them.
 */
@Configuration(proxyBeanMethods = false)
public class DownstreamClients {
    /** The bean name of the calls to {@code -Dspindle.remote}. */
    public static final String PLAIN = "downstreamCalls";
    /** The bean name of the calls over HTTPS to {@code -Dspindle.remoteTls} ({@code /remote-tls/{ms}}). */
    public static final String TLS = "tlsDownstreamCalls";
    /** The bean name of the calls over HTTP/2 to {@code -Dspindle.remoteTls} ({@code /remote-h2/{ms}}). */
    public static final String H2 = "h2DownstreamCalls";
    /** The JDK HTTP/2 clients (one connection each) of {@value #H2}'s blocking calls: 10 x 100 streams hold the matrix's 1,000. */
    static final int H2_LANES = 10;
    /** Streams each carries at once: within the 128 the downstream allows, with room for streams still closing. */
    static final int H2_STREAMS_PER_LANE = 100;

    /**
     * A resource factory of the context's own, not Reactor Netty's global one (which the first
     * context to close would dispose under any other in the same JVM), with the downstream's
     * connection pool. Its loops stop after the server's graceful shutdown has drained the
     * requests, and with them their downstream calls: no quiet period to wait out.
     *
     * @return the factory, for the app to add its loop resources to and declare as a bean
     */
    public static ReactorResourceFactory ownResources() {
        ReactorResourceFactory resources = new ReactorResourceFactory();
        resources.setUseGlobalResources(false);
        resources.setConnectionProviderSupplier(DownstreamCalls::connectionPool);
        resources.setShutdownQuietPeriod(Duration.ZERO);
        return resources;
    }

    /**
     * Read now, as the context starts (the conformance suite sets the properties per start).
     *
     * @return the configured downstream
     */
    @Bean
    RemoteDownstream remoteDownstream() {
        return RemoteDownstream.fromSystemProperties();
    }

    /**
     * Spring's non-blocking client on Reactor Netty, on the context's event loops.
     *
     * @param resources the context's resource factory
     * @return the client
     */
    @Bean
    WebClient downstreamWebClient(ReactorResourceFactory resources) {
        return WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(resources, Function.identity()))
                .build();
    }

    /**
     * The JDK's client under {@code RestClient} (closed with the context); HTTP/1.1 as the downstream speaks.
     *
     * @return the client
     */
    @Bean
    HttpClient downstreamJdkClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    /**
     * The remote routes' calls, through both clients.
     *
     * @param remoteDownstream where they go
     * @param downstreamWebClient the asynchronous client
     * @param downstreamJdkClient the blocking client's transport
     * @return the calls
     */
    @Bean(PLAIN)
    @Primary
    DownstreamCalls downstreamCalls(RemoteDownstream remoteDownstream, WebClient downstreamWebClient,
            HttpClient downstreamJdkClient) {
        return new DownstreamCalls(remoteDownstream, downstreamWebClient, downstreamJdkClient);
    }

    /**
     * {@code /remote-tls/{ms}}'s calls: over HTTPS, HTTP/1.1 as {@code /remote/{ms}}'s, on the same
     * event loops and connection pool.
     *
     * @param resources the context's resource factory
     * @return the calls (its JDK client closed with the context)
     */
    @Bean(TLS)
    @Qualifier(TLS)
    DownstreamCalls tlsDownstreamCalls(ReactorResourceFactory resources) {
        TrustManagerFactory trust = RemoteDownstream.trustFromSystemProperties();
        Http11SslContextSpec tls = Http11SslContextSpec.forClient();
        if (trust != null) {
            tls = tls.configure(builder -> builder.trustManager(trust));
        }
        Http11SslContextSpec spec = tls;
        WebClient webClient = WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(resources, client -> client.secure(ssl -> ssl.sslContext(spec))))
                .build();
        HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(sslContext(trust)).build();
        return new DownstreamCalls(RemoteDownstream.fromSystemProperties(RemoteDownstream.TLS_PROPERTY), webClient, jdk,
                RemoteDownstream.unconfiguredTlsMessage());
    }

    /**
     * {@code /remote-h2/{ms}}'s calls: HTTP/2 over TLS, h2 chosen by ALPN. Reactor Netty's
     * {@code HttpClient.protocol(HttpProtocol.H2)} multiplexes streams on each pooled connection (up
     * to the downstream's limit, opening another beyond it). The JDK's {@code Version.HTTP_2} client
     * opens one connection and fails calls beyond the downstream's limit (JDK-8225647): the
     * blocking calls go over {@value #H2_LANES} of them, each carrying at most
     * {@value #H2_STREAMS_PER_LANE} at once, and wait for a stream beyond that.
     *
     * @param resources the context's resource factory
     * @return the calls (its JDK client closed with the context)
     */
    @Bean(H2)
    @Qualifier(H2)
    DownstreamCalls h2DownstreamCalls(ReactorResourceFactory resources) {
        TrustManagerFactory trust = RemoteDownstream.trustFromSystemProperties();
        Http2SslContextSpec tls = Http2SslContextSpec.forClient();
        if (trust != null) {
            tls = tls.configure(builder -> builder.trustManager(trust));
        }
        Http2SslContextSpec spec = tls;
        WebClient webClient = WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(resources,
                        client -> client.protocol(HttpProtocol.H2).secure(ssl -> ssl.sslContext(spec))))
                .build();
        SSLContext context = sslContext(trust);
        List<HttpClient> lanes = new ArrayList<>();
        for (int i = 0; i < H2_LANES; i++) {
            lanes.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(context).build());
        }
        return new DownstreamCalls(RemoteDownstream.fromSystemProperties(RemoteDownstream.TLS_PROPERTY), webClient, lanes,
                H2_STREAMS_PER_LANE, RemoteDownstream.unconfiguredTlsMessage());
    }

    /** The JDK client's TLS: {@code trust}'s managers, or the JDK's default context (javax.net.ssl.trustStore) when null. */
    private static SSLContext sslContext(TrustManagerFactory trust) {
        try {
            if (trust == null) {
                return SSLContext.getDefault();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no TLS context", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot initialise the downstream's TLS context", e);
        }
    }
}
