// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.SystemProperty;

/**
 * The blocking servers' own settings, beside the strategy-neutral {@link ServerConfig}. Immutable;
 * each setter-like method returns a changed copy:
 * {@code new ThreadPoolServer(config, router, BlockingSettings.defaults().queueCapacity(100))}. A
 * server made without them ({@code new ThreadPoolServer(config, router)}) reads
 * {@link #fromSystemProperties()}.
 *
 * <table>
 *   <caption>Settings, their system properties (read by {@link #fromSystemProperties()}) and defaults</caption>
 *   <tr><th>setting</th><th>property</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>queueCapacity</td><td>spindle.queueCapacity</td><td>1024</td><td>{@link ThreadPoolServer}: accepted connections waiting for a pool thread; one more is answered 503 and closed</td></tr>
 * </table>
 *
 * @param queueCapacity how many accepted connections may wait for a pool thread
 *        ({@link ThreadPoolServer} only); positive
 */
public record BlockingSettings(int queueCapacity) {
    /**
     * Checks the value.
     *
     * @throws IllegalArgumentException if {@code queueCapacity} is not positive
     */
    public BlockingSettings {
        if (queueCapacity <= 0) {
            throw new IllegalArgumentException("queueCapacity must be positive, got " + queueCapacity);
        }
    }

    /**
     * Every setting at its default (the table above); system properties are not read.
     *
     * @return a queue of 1024 connections
     */
    public static BlockingSettings defaults() {
        return new BlockingSettings(1024);
    }

    /**
     * Defaults overridden by any property in the table above, read as {@link ServerConfig}'s are (a
     * blank property counts as unset).
     *
     * @return the settings the properties describe
     * @throws IllegalArgumentException if a property does not parse or is out of range (the message
     *         names the property)
     */
    public static BlockingSettings fromSystemProperties() {
        return new BlockingSettings(SystemProperty.read("spindle.queueCapacity", defaults().queueCapacity, BlockingSettings::capacity));
    }

    private static int capacity(String value) {
        int capacity = Integer.parseInt(value);
        if (capacity <= 0) {
            throw new IllegalArgumentException("queueCapacity must be positive");
        }
        return capacity;
    }

    /**
     * How many accepted connections may wait for a pool thread ({@link ThreadPoolServer} only); one
     * more is answered 503 and closed.
     *
     * @param count positive; default 1024
     * @return a copy with this capacity
     * @throws IllegalArgumentException if {@code count} is not positive
     */
    public BlockingSettings queueCapacity(int count) {
        return new BlockingSettings(count);
    }
}
