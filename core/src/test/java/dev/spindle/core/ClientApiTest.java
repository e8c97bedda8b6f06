// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The client's API without sockets: addresses, configuration, one send per request. */
class ClientApiTest {
    private final Client client = Client.create();

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "http://127.0.0.1:8081/delay/100, 127.0.0.1:8081, /delay/100",
            "http://127.0.0.1:8081, 127.0.0.1:8081, /",
            "http://example.test/a?b=1, example.test, /a?b=1",
            "http://example.test?b=1, example.test, /?b=1",
            "http://example.test/a#frag, example.test, /a",
            "HTTP://[::1]:9000/x, [::1]:9000, /x",
            "https://example.test/a, example.test, /a",
            "HTTPS://127.0.0.1:8443/a?b=1, 127.0.0.1:8443, /a?b=1",
    })
    void addressesSplitIntoDestinationAndTarget(String uri, String authority, String target) {
        Client.RequestBuilder r = client.get(uri);
        assertThat(r.authority()).isEqualTo(authority);
        assertThat(r.target()).isEqualTo(target);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "https:///x | no host",
            "ftp://127.0.0.1/x | must be absolute and start with http:// or https://",
            "/relative | must be absolute and start with http://",
            "http:///x | no host",
            "http://127.0.0.1:99999/x | port out of range",
            "http://127.0.0.1:8o/x | bad port",
            "http://user@127.0.0.1/x | user information",
            "http://[::1/x | unclosed IPv6",
    })
    void badAddressesAreRefusedWhereTheyAreGiven(String uri, String message) {
        assertThatThrownBy(() -> client.get(uri)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void aRequestIsSentOnce() throws Exception {
        Client.RequestBuilder r = client.get("http://127.0.0.1:1/x");
        r.send().toCompletableFuture().handle((ok, failure) -> null).get();
        assertThatThrownBy(r::send).isInstanceOf(IllegalStateException.class).hasMessageContaining("sent already");
        assertThatThrownBy(r::call).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void interceptorsSeeEachRequestOnceOnTheCallersThreadInTheOrderAdded() throws Exception {
        java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        ClientInterceptor first = r -> seen.add("first " + r.method() + " " + r.authority() + r.target() + " on " + Thread.currentThread().getName());
        ClientInterceptor second = r -> seen.add("second");
        ClientConfig config = ClientConfig.defaults().interceptor(first).interceptor(second);
        assertThat(config.interceptors()).containsExactly(first, second);
        assertThat(ClientConfig.defaults().interceptors()).as("none by default").isEmpty();
        assertThat(config.responseTimeout(Duration.ofSeconds(1)).interceptors()).as("kept by other setters").containsExactly(first, second);
        assertThatThrownBy(() -> ClientConfig.defaults().interceptor(null)).isInstanceOf(NullPointerException.class);
        try (Client intercepted = Client.create(config)) {
            Client.RequestBuilder r = intercepted.request("PUT", "http://127.0.0.1:1/x?y=1");
            assertThat(seen).as("not before it is sent").isEmpty();
            r.send().toCompletableFuture().handle((ok, failure) -> null).get();
            assertThat(seen).containsExactly("first PUT 127.0.0.1:1/x?y=1 on " + Thread.currentThread().getName(), "second");
        }
    }

    @Test
    void anInterceptorsFailureReachesTheCallerAndTheRequestIsNotSent() {
        ClientConfig config = ClientConfig.defaults().interceptor(r -> {
            throw new IllegalStateException("no credentials");
        });
        try (Client intercepted = Client.create(config)) {
            assertThatThrownBy(() -> intercepted.get("http://127.0.0.1:1/x").call())
                    .isInstanceOf(IllegalStateException.class).hasMessage("no credentials");
            assertThatThrownBy(() -> intercepted.get("http://127.0.0.1:1/x").send())
                    .isInstanceOf(IllegalStateException.class).hasMessage("no credentials");
        }
    }

    @Test
    void configDefaultsComeFromTheEngineAndSettersCheck() {
        ClientConfig c = ClientConfig.defaults();
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.responseTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.maxConnectionsPerDestination()).isEqualTo(64);
        assertThat(c.maxPipelined()).isEqualTo(1);
        ClientConfig changed = c.responseTimeout(Duration.ofMillis(250)).maxConnectionsPerDestination(2);
        assertThat(changed.responseTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.responseTimeout()).as("unchanged").isEqualTo(Duration.ofSeconds(30));
        assertThat(changed.settings().responseTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> c.maxConnectionsPerDestination(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.maxWaitingRequests(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.connectTimeout(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void configReadsSystemProperties() {
        System.setProperty("spindle.client.maxConnections", "7");
        System.setProperty("spindle.client.responseTimeoutMs", "1500");
        try {
            ClientConfig c = ClientConfig.fromSystemProperties();
            assertThat(c.maxConnectionsPerDestination()).isEqualTo(7);
            assertThat(c.responseTimeout()).isEqualTo(Duration.ofMillis(1500));
            System.setProperty("spindle.client.maxConnections", "zero");
            assertThatThrownBy(ClientConfig::fromSystemProperties).hasMessageContaining("spindle.client.maxConnections");
        } finally {
            System.clearProperty("spindle.client.maxConnections");
            System.clearProperty("spindle.client.responseTimeoutMs");
        }
    }

    @Test
    void configReadsTheTlsAndExchangeProperties() {
        System.setProperty("spindle.client.trustStore", dev.spindle.core.testing.TestTls.localhost().trustStore().toString());
        System.setProperty("spindle.client.trustStorePassword", dev.spindle.core.testing.TestTls.PASSWORD);
        System.setProperty("spindle.client.followRedirects", "2");
        System.setProperty("spindle.client.decompression", "true");
        try {
            ClientConfig c = ClientConfig.fromSystemProperties();
            assertThat(c.followRedirects()).isEqualTo(2);
            assertThat(c.decompression()).isTrue();
            assertThat(c.toString()).contains("trustStore");
            System.setProperty("spindle.client.trustStorePassword", "wrong");
            assertThatThrownBy(ClientConfig::fromSystemProperties).hasMessageContaining("spindle.client.trustStore");
            System.setProperty("spindle.client.decompression", "yes");
            assertThatThrownBy(ClientConfig::fromSystemProperties).hasMessageContaining("spindle.client.decompression");
        } finally {
            for (String p : new String[] {"trustStore", "trustStorePassword", "followRedirects", "decompression"}) {
                System.clearProperty("spindle.client." + p);
            }
        }
    }
}
