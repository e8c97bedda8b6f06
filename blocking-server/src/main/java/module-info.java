// SPDX-License-Identifier: Apache-2.0
/**
 * Spindle's blocking servers (single thread, thread per connection, pool, virtual threads): they
 * accept, read and write on blocking sockets and leave HTTP to core's connection through the
 * strategy contract ({@code dev.spindle.core.spi}).
 */
module dev.spindle.blocking {
    // its servers are core's HttpServer, built from ServerConfig and Router
    requires transitive dev.spindle.core;
    requires org.slf4j;

    exports dev.spindle.blocking;
}
