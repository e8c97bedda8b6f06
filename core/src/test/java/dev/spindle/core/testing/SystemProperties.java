// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

/** System properties set for the duration of a test block, for the tests of settings read from {@code -Dspindle.*}. */
public final class SystemProperties {
    private SystemProperties() {
    }

    /**
     * Sets a system property for the duration of {@code body}, restoring the previous value (or its absence).
     *
     * @param name the property
     * @param value its value meanwhile
     * @param body what runs with it set
     */
    public static void withProperty(String name, String value, Runnable body) {
        String previous = System.getProperty(name);
        System.setProperty(name, value);
        try {
            body.run();
        } finally {
            if (previous == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, previous);
            }
        }
    }
}
