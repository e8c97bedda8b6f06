/**
 * Spindle's core: the HTTP engine every server strategy shares, and the API applications use.
 * Only {@code dev.spindle.core} is exported to everyone; {@code dev.spindle.core.spi} (the
 * sans-I/O connection and the server shells) only to Spindle's own server modules.
 */
module dev.spindle.core {
    requires transitive org.slf4j;

    exports dev.spindle.core;
    exports dev.spindle.core.spi to dev.spindle.blocking, dev.spindle.nio, dev.spindle.iouring;
}
