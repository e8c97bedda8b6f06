// SPDX-License-Identifier: Apache-2.0
/**
 * For server implementations (strategy modules), not applications: the sans-I/O
 * {@link dev.spindle.core.spi.Connection} every strategy feeds and drains (and
 * {@link dev.spindle.core.spi.OutboundConnection}, the same for a socket the strategy opened
 * itself, to call another server), the event-loop server
 * shell ({@link dev.spindle.core.spi.EventLoopServer}, {@link dev.spindle.core.spi.LoopContext}),
 * what an event loop offers for sockets it opens itself ({@link dev.spindle.core.spi.OutboundLoop},
 * found through {@link dev.spindle.core.spi.OutboundLoops}, driving an
 * {@link dev.spindle.core.spi.OutboundConnection} like an accepted one), and the lifecycle and
 * connection-limit bookkeeping every server shares, as well as the event loops' shared parts of
 * {@code OutboundLoop} ({@link dev.spindle.core.spi.LoopTasks}, the tasks and wakeups other threads
 * queue; {@link dev.spindle.core.spi.OutboundRegistry}, the sockets a loop opened). The HTTP engine behind
 * {@code Connection} stays package-private in {@code dev.spindle.core}. The module
 * {@code dev.spindle.core} exports this package only to Spindle's server modules
 * ({@code dev.spindle.blocking}, {@code dev.spindle.nio}, {@code dev.spindle.iouring}); it may
 * change between releases.
 */
package dev.spindle.core.spi;
