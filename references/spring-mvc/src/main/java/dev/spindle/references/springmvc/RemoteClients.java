// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.springmvc;

import dev.spindle.references.spring.DownstreamClients;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * The downstream of the remote routes and the clients that call it ({@link RemoteController},
 * {@link DownstreamClients}), created when the context starts and closed with it. The servlet stack
 * has no Reactor Netty of its own: the {@code WebClient} gets event loops of its own here.
 */
@Configuration(proxyBeanMethods = false)
@Import(DownstreamClients.class)
class RemoteClients {
    /** @return the WebClient's own event loops (Reactor Netty's default count) and pool */
    @Bean
    ReactorResourceFactory downstreamResources() {
        return DownstreamClients.ownResources();
    }
}
