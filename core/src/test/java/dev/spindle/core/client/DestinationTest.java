// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How a destination keeps its address: a literal for good, a looked-up name while it is fresh. */
class DestinationTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void anIpLiteralIsItsAddressAtOnceAndForGood() {
        Destination d = new Destination("127.0.0.1", 8081, "127.0.0.1:8081", now::get);
        InetSocketAddress address = d.addressNow();
        assertThat(address).isNotNull();
        assertThat(address.getPort()).isEqualTo(8081);
        now.addAndGet(TimeUnit.DAYS.toNanos(1));
        assertThat(d.addressNow()).isSameAs(address);
        assertThat(d.resolve().join()).isSameAs(address);
    }

    @Test
    void aNameIsLookedUpOnceWhileFreshAndAgainOnceStale() throws Exception {
        Destination d = new Destination("localhost", 8081, "localhost:8081", now::get);
        assertThat(d.addressNow()).as("not looked up yet").isNull();
        CompletableFuture<InetSocketAddress> first = d.resolve();
        InetSocketAddress found = first.get(10, TimeUnit.SECONDS);
        assertThat(found.getAddress().isLoopbackAddress()).isTrue();
        assertThat(d.addressNow()).isSameAs(found);
        now.addAndGet(Destination.FOUND_NANOS - 1);
        assertThat(d.resolve()).as("still fresh: the same answer, no new lookup").isSameAs(first);
        now.addAndGet(1);
        assertThat(d.addressNow()).as("stale: the name is due to be looked up again").isNull();
        CompletableFuture<InetSocketAddress> second = d.resolve();
        assertThat(second).isNotSameAs(first);
        assertThat(d.resolve()).as("one lookup at a time").isSameAs(second);
        assertThat(second.get(10, TimeUnit.SECONDS).getAddress().isLoopbackAddress()).isTrue();
        assertThat(d.addressNow()).isNotNull();
    }
}
