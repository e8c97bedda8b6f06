// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import java.util.function.Function;

/**
 * Reads one {@code -Dspindle.*} system property the way every Spindle setting is read: a missing
 * or blank property counts as unset, a value is trimmed before it is parsed, and a value that does
 * not parse names its property in the exception. {@link dev.spindle.core.ServerConfig} and the
 * strategy modules' own settings share it, so a property reads alike wherever it belongs.
 */
public final class SystemProperty {
    private SystemProperty() {
    }

    /**
     * The parsed value of a system property, or {@code fallback} when it is unset or blank.
     *
     * @param <T> the setting's type
     * @param name the property, e.g. {@code spindle.busyPoll}
     * @param fallback what an unset or blank property means
     * @param parse turns the trimmed value into the setting; throws a {@link RuntimeException} if it cannot
     * @return the parsed value, or {@code fallback}
     * @throws IllegalArgumentException if {@code parse} throws (the message names the property and its value)
     */
    public static <T> T read(String name, T fallback, Function<String, ? extends T> parse) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return parse.apply(value.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid value for -D" + name + ": " + value + " (" + e.getMessage() + ")", e);
        }
    }
}
