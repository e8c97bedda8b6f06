// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Where the blocking routes ({@code /blocking/{ms}}, {@code /remote-blocking/{ms}}) run their wait,
 * never on an event loop: the system property {@value #PROPERTY}, default {@link #BOUNDED_ELASTIC}.
 */
public enum Offload {
    /**
     * Reactor's {@code Schedulers.boundedElastic()}, which Reactor's reference guide names for
     * wrapping a blocking call: up to ten threads per CPU, then a queue of 100,000 tasks per thread.
     */
    BOUNDED_ELASTIC("bounded-elastic"),
    /**
     * A Spring {@code ThreadPoolTaskExecutor} as an {@code @Async} pool is usually configured: 100
     * core threads, a queue of 1,000, then up to 200 threads; beyond that a task is rejected (500).
     */
    ASYNC_POOL("async-pool");

    /** The system property naming the offload. */
    public static final String PROPERTY = "spindle.webflux.offload";

    private final String value;

    Offload(String value) {
        this.value = value;
    }

    /** {@return the property's value for this offload} */
    public String value() {
        return value;
    }

    /**
     * Reads {@value #PROPERTY}: unset or blank is {@link #BOUNDED_ELASTIC}.
     *
     * @return the chosen offload
     * @throws IllegalArgumentException if the property names none of them
     */
    public static Offload fromSystemProperties() {
        return parse(System.getProperty(PROPERTY));
    }

    /**
     * The offload a property value names.
     *
     * @param raw the value, null or blank for the default
     * @return the offload
     * @throws IllegalArgumentException if it names none of them
     */
    public static Offload parse(String raw) {
        if (raw == null || raw.isBlank()) {
            return BOUNDED_ELASTIC;
        }
        String wanted = raw.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(o -> o.value.equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(PROPERTY + " must be one of "
                        + Arrays.stream(values()).map(Offload::value).collect(Collectors.joining(", "))
                        + ", not '" + raw + "'"));
    }
}
