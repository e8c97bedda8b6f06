// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.SystemProperty;

/**
 * The NIO engine's own settings, beside the strategy-neutral {@link ServerConfig}. Immutable; each
 * setter-like method returns a changed copy:
 * {@code new MultiLoopServer(config, router, NioSettings.defaults().busyPoll(true))}. A server made
 * without them ({@code new MultiLoopServer(config, router)}) reads {@link #fromSystemProperties()}.
 *
 * <table>
 *   <caption>Settings, their system properties (read by {@link #fromSystemProperties()}) and defaults</caption>
 *   <tr><th>setting</th><th>property</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>directBuffers</td><td>spindle.directBuffers</td><td>true</td><td>each loop's read buffer is direct (saves the JDK's copy through its temporary direct buffer: an interleaved A/B measured 1.00-1.06x req/CPU-s on plaintext and up to 1.15x on large echoes); false reads into a heap array the parser reads in place</td></tr>
 *   <tr><td>busyPoll</td><td>spindle.busyPoll</td><td>false</td><td>spin on {@code selectNow()} before a blocking {@code select}: lower wake-up latency for a core kept busy</td></tr>
 *   <tr><td>busyPollSpins</td><td>spindle.busyPollSpins</td><td>1000</td><td>with busyPoll: empty {@code selectNow()} calls before a loop blocks</td></tr>
 * </table>
 *
 * @param directBuffers whether each loop reads into a direct buffer rather than a heap array
 * @param busyPoll whether loops spin on {@code selectNow()} before blocking in {@code select()}
 * @param busyPollSpins the empty {@code selectNow()} calls a busy-polling loop makes before it
 *        blocks; positive
 */
public record NioSettings(boolean directBuffers, boolean busyPoll, int busyPollSpins) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException if {@code busyPollSpins} is not positive
     */
    public NioSettings {
        if (busyPollSpins <= 0) {
            throw new IllegalArgumentException("busyPollSpins must be positive, got " + busyPollSpins);
        }
    }

    /**
     * Every setting at its default (the table above); system properties are not read.
     *
     * @return direct buffers, no busy-polling, 1000 spins
     */
    public static NioSettings defaults() {
        return new NioSettings(true, false, 1000);
    }

    /**
     * Defaults overridden by any property in the table above, read as {@link ServerConfig}'s are: a
     * blank property counts as unset, and a boolean is true only when it says {@code true} (in any
     * case).
     *
     * @return the settings the properties describe
     * @throws IllegalArgumentException if a property does not parse or is out of range (the message
     *         names the property)
     */
    public static NioSettings fromSystemProperties() {
        NioSettings d = defaults();
        return new NioSettings(
                SystemProperty.read("spindle.directBuffers", d.directBuffers, Boolean::parseBoolean),
                SystemProperty.read("spindle.busyPoll", d.busyPoll, Boolean::parseBoolean),
                SystemProperty.read("spindle.busyPollSpins", d.busyPollSpins, NioSettings::spins));
    }

    private static int spins(String value) {
        int spins = Integer.parseInt(value);
        if (spins <= 0) {
            throw new IllegalArgumentException("busyPollSpins must be positive");
        }
        return spins;
    }

    /**
     * Whether each loop reads into a direct buffer instead of a heap array.
     *
     * @param on false for heap arrays; default true
     * @return a copy with this setting
     */
    public NioSettings directBuffers(boolean on) {
        return new NioSettings(on, busyPoll, busyPollSpins);
    }

    /**
     * Whether loops spin on {@code selectNow()} before blocking in {@code select()}: lower wake-up
     * latency, for a core kept busy.
     *
     * @param on true to spin; default false
     * @return a copy with this setting
     */
    public NioSettings busyPoll(boolean on) {
        return new NioSettings(directBuffers, on, busyPollSpins);
    }

    /**
     * How many empty {@code selectNow()} calls a busy-polling loop makes before it blocks.
     *
     * @param spins positive; default 1000
     * @return a copy with this count
     * @throws IllegalArgumentException if {@code spins} is not positive
     */
    public NioSettings busyPollSpins(int spins) {
        return new NioSettings(directBuffers, busyPoll, spins);
    }
}
