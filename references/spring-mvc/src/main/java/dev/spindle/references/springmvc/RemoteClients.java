package dev.spindle.references.springmvc;

import dev.spindle.references.support.RemoteDownstream;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * The downstream of the remote routes and the clients that call it ({@link RemoteController}),
 * created when the context starts and closed with it.
 */
@Configuration(proxyBeanMethods = false)
class RemoteClients {
    /**
     * Reactor Netty's default pool holds 2 connections per processor (at least 16) and queues
     * twice that many callers, failing the rest: the benchmark's 1,000 concurrent {@code /remote}
     * calls need a connection each, as the JDK client of the blocking route opens them.
     */
    private static final int MAX_CONNECTIONS = 4096;

    /** Read now, as the context starts (the conformance suite sets the properties per start). */
    @Bean
    RemoteDownstream remoteDownstream() {
        return RemoteDownstream.fromSystemProperties();
    }

    /**
     * The WebClient's own event loops and pool, started and stopped with the context (Reactor
     * Netty's global ones would outlive it). The loops stop after Tomcat's graceful shutdown has
     * drained the requests, and with them their downstream calls: no quiet period to wait out.
     */
    @Bean
    ReactorResourceFactory downstreamResources() {
        ReactorResourceFactory resources = new ReactorResourceFactory();
        resources.setUseGlobalResources(false);
        resources.setConnectionProviderSupplier(() -> ConnectionProvider.builder("spindle-downstream")
                .maxConnections(MAX_CONNECTIONS)
                .pendingAcquireMaxCount(-1)
                .build());
        resources.setShutdownQuietPeriod(Duration.ZERO);
        return resources;
    }

    /** Spring's non-blocking client on Reactor Netty (its event loops complete the calls). */
    @Bean
    WebClient downstreamWebClient(ReactorResourceFactory downstreamResources) {
        return WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(downstreamResources, Function.identity()))
                .build();
    }

    /** The JDK's client under {@code RestClient} (closed with the context); HTTP/1.1 as the downstream speaks. */
    @Bean
    HttpClient downstreamJdkClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }
}
