// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.spring;

import dev.spindle.references.support.RemoteDownstream;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The downstream of a Spring reference's remote routes and the clients that call it, created when
 * the context starts and closed with it; an app imports it and supplies the context's one
 * {@link ReactorResourceFactory} (made by {@link #ownResources()}), whose event loops the
 * {@link WebClient} runs on.
 */
@Configuration(proxyBeanMethods = false)
public class DownstreamClients {
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
    @Bean
    DownstreamCalls downstreamCalls(RemoteDownstream remoteDownstream, WebClient downstreamWebClient,
            HttpClient downstreamJdkClient) {
        return new DownstreamCalls(remoteDownstream, downstreamWebClient, downstreamJdkClient);
    }
}
