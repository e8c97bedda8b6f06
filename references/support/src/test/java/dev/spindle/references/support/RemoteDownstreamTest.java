// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RemoteDownstreamTest {
    @AfterEach
    void clear() {
        System.clearProperty(RemoteDownstream.PROPERTY);
        System.clearProperty(RemoteDownstream.MARGIN_PROPERTY);
    }

    @Test
    void readsTheAddressAndMarginFromTheProperties() {
        System.setProperty(RemoteDownstream.PROPERTY, " http://127.0.0.1:8081/base/ ");
        System.setProperty(RemoteDownstream.MARGIN_PROPERTY, "300");
        RemoteDownstream d = RemoteDownstream.fromSystemProperties();
        assertThat(d.configured()).isTrue();
        assertThat(d.delayUri(50)).isEqualTo(URI.create("http://127.0.0.1:8081/base/delay/50"));
        assertThat(d.delayPath(50)).isEqualTo("/base/delay/50");
        assertThat(d.timeout(50)).isEqualTo(Duration.ofMillis(350));
    }

    @Test
    void unsetMeansNoneWithTheDefaultMargin() {
        RemoteDownstream d = RemoteDownstream.fromSystemProperties();
        assertThat(d.configured()).isFalse();
        assertThat(d.timeout(100)).isEqualTo(RemoteDownstream.DEFAULT_MARGIN.plusMillis(100));
        assertThatThrownBy(() -> d.delayUri(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RemoteDownstream.PROPERTY);
    }

    @Test
    void rejectsMalformedProperties() {
        System.setProperty(RemoteDownstream.PROPERTY, "ftp://127.0.0.1:21");
        assertThatThrownBy(RemoteDownstream::fromSystemProperties).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http or https");
        System.setProperty(RemoteDownstream.PROPERTY, "http://127.0.0.1:1");
        System.setProperty(RemoteDownstream.MARGIN_PROPERTY, "soon");
        assertThatThrownBy(RemoteDownstream::fromSystemProperties).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RemoteDownstream.MARGIN_PROPERTY);
    }
}
