// SPDX-License-Identifier: Apache-2.0
/**
 * Spindle's NIO event-loop servers: selector loops that accept, read, write and schedule, and
 * leave HTTP to core's connection through the strategy contract ({@code dev.spindle.core.spi}).
 */
module dev.spindle.nio {
    // its servers are core's HttpServer, built from ServerConfig and Router
    requires transitive dev.spindle.core;
    requires org.slf4j;

    exports dev.spindle.nio;
}
