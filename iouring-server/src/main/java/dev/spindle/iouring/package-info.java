// SPDX-License-Identifier: Apache-2.0
/**
 * HTTP/1.1 over io_uring: {@link dev.spindle.iouring.IoUringServer} drives the core's sans-I/O
 * {@link dev.spindle.core.spi.Connection} from completions of rings reached through FFM bindings to
 * liburing ({@code dev.spindle.iouring.ffi}).
 *
 * <p>Split the way Netty's io_uring transport splits it: {@code Ring} (the native ring, its setup
 * and the one liburing call per loop iteration), {@code SubmissionQueue} and
 * {@code CompletionQueue} (the mapped queues, read and written in Java), {@code UserData} (op,
 * connection slot and generation in each {@code user_data}), {@code BufferRing} (provided receive
 * buffers), {@code SendBuffers} (native send buffers), {@code RingWorker} (the event loop: one
 * ring, one thread, one SO_REUSEPORT listening socket), {@code RingAcceptor} (that socket and its
 * multishot accept), {@code RingTransfers} (the receives and sends of its sockets),
 * {@code RingWakeup} (the eventfd other threads wake the ring with),
 * {@code OutboundSockets} (the sockets the ring connects itself, for a client on the ring),
 * {@code ConnectionTable} (the ring's connections by slot, and the live ones) and
 * {@code RingConnection} (per-socket state). {@link dev.spindle.iouring.IoUring} says whether
 * io_uring can be used here, and why not.
 */
package dev.spindle.iouring;
