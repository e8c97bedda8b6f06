// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.testing.FixedBytesConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The outbound sockets' bookkeeping: identity lookup, swap-removal, tick planning, closing them all. */
class OutboundRegistryTest {
    private static final long SCAN = TimeUnit.MILLISECONDS.toNanos(250);
    private static final InetSocketAddress REMOTE = new InetSocketAddress("127.0.0.1", 9);

    private final List<String> ticked = new ArrayList<>();
    private final Registry registry = new Registry();

    /** Sockets are their names; closing one removes it, as a strategy's close does. */
    private final class Registry extends OutboundRegistry<String> {
        final List<OutboundConnection> connections = new ArrayList<>();

        Registry() {
            super("loop-0", SCAN);
        }

        @Override
        protected void tick(String socket, long now) {
            ticked.add(socket);
            if (socket.startsWith("closing")) {
                close(socket);
            }
        }

        @Override
        protected void close(String socket) {
            remove(connections.get(Integer.parseInt(socket.substring(socket.length() - 1))));
        }

        OutboundConnection add(String socket, long now) {
            var connection = new FixedBytesConnection("x", Duration.ofHours(1));
            connections.add(connection);
            add(connection, socket, now);
            return connection;
        }
    }

    @Test
    void findsASocketByItsConnectionsIdentityUntilItIsRemoved() {
        OutboundConnection a = registry.add("socket 0", 0);
        OutboundConnection b = registry.add("socket 1", 0);
        OutboundConnection c = registry.add("socket 2", 0);
        assertThat(registry.find(a)).isEqualTo("socket 0");
        assertThat(registry.find(new FixedBytesConnection("x"))).isNull();

        registry.remove(a);
        registry.remove(a);
        assertThat(registry.find(a)).isNull();
        assertThat(registry.find(b)).isEqualTo("socket 1");
        assertThat(registry.find(c)).isEqualTo("socket 2");
        assertThat(registry.closeAll()).isEqualTo(2);
        assertThat(registry.find(c)).isNull();
        assertThat(registry.nanosToTick(0)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void ticksEverySocketOnceWhenDueEvenThoseClosingMeanwhile() {
        registry.add("closing 0", 0);
        registry.add("socket 1", 0);
        registry.add("closing 2", 0);
        registry.add("socket 3", 0);
        assertThat(registry.nanosToTick(0)).isEqualTo(SCAN);

        registry.tickIfDue(SCAN - 1);
        assertThat(ticked).isEmpty();

        registry.tickIfDue(SCAN);
        assertThat(ticked).containsExactlyInAnyOrder("closing 0", "socket 1", "closing 2", "socket 3");
        assertThat(registry.nanosToTick(SCAN)).as("the next a scan away").isEqualTo(SCAN);
        ticked.clear();
        registry.tickIfDue(2 * SCAN);
        assertThat(ticked).containsExactlyInAnyOrder("socket 1", "socket 3");
    }

    @Test
    void aConnectionsEarlierDeadlineBringsTheTickForward() {
        var soon = new FixedBytesConnection("x", Duration.ofMillis(10));
        long now = System.nanoTime();
        registry.add("socket 0", now);
        assertThat(registry.nanosToTick(now)).isEqualTo(SCAN);
        registry.scheduleTick(soon, now);
        assertThat(registry.nanosToTick(now)).isPositive().isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
        // a later deadline leaves it
        registry.scheduleTick(registry.connections.getFirst(), now);
        assertThat(registry.nanosToTick(now)).isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
    }

    @Test
    void connectIsCheckedBeforeASocketIsOpened() {
        OutboundConnection driven = registry.add("socket 0", 0);
        assertThatThrownBy(() -> registry.checkConnect(false, REMOTE, new FixedBytesConnection("x")))
                .isInstanceOf(IllegalStateException.class).hasMessageEndingWith("not on loop-0");
        assertThatThrownBy(() -> registry.checkConnect(true, REMOTE, driven))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("loop-0 drives this connection already");
        assertThatThrownBy(() -> registry.checkConnect(true, null, driven)).isInstanceOf(NullPointerException.class);
        registry.checkConnect(true, REMOTE, new FixedBytesConnection("x"));
    }

    @Test
    void aRefusedConnectionHearsItThenIsClosed() {
        var connection = new FixedBytesConnection("x");
        var cause = new IOException("no socket");
        registry.refuse(connection, cause);
        assertThat(connection.events).containsExactly("connectFailed", "closed");
        assertThat(connection.failure).isSameAs(cause);
    }
}
