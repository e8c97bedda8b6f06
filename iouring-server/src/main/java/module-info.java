// SPDX-License-Identifier: Apache-2.0
/**
 * Spindle's io_uring server: rings driven through the FFM API that accept, read, write and
 * schedule, and leave HTTP to core's connection through the strategy contract
 * ({@code dev.spindle.core.spi}). The jextract bindings ({@code dev.spindle.iouring.ffi}) stay
 * inside: they call native code, so the JVM must grant this module native access
 * ({@code --enable-native-access=dev.spindle.iouring}, or {@code ALL-UNNAMED} on the class path).
 */
module dev.spindle.iouring {
    // its server is core's HttpServer, built from ServerConfig and Router
    requires transitive dev.spindle.core;
    requires org.slf4j;

    exports dev.spindle.iouring;
}
