// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.core.spi.Connection;
import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.Libc;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receives and sends of one {@link RingWorker}'s sockets, accepted and outbound alike, on its
 * ring thread: per socket a multishot recv with buffer selection from the worker's
 * {@link BufferRing} (re-armed by the worker when a completion lacks {@code IORING_CQE_F_MORE},
 * including after {@code ENOBUFS}), cancelled when bytes arrive for a core that does not want input
 * (and single-shot after that until the core is idle), and at most one send, of the core's pending
 * output copied into a native buffer ({@link SendBuffers}). A completion feeds the core, and the worker then acts on what it answers
 * ({@link RingWorker#markDirty}); a kernel error on one socket closes that socket only.
 */
final class RingTransfers {
    private static final Logger log = LoggerFactory.getLogger(RingTransfers.class);

    private final RingWorker worker;
    private final ConnectionTable connections;
    private final int bufferGroup;
    private final SendBuffers sendBuffers;
    private SubmissionQueue sq;
    private BufferRing buffers;

    // statistics (written by the ring thread only)
    volatile long recvRearms;
    volatile long noBufferRearms;
    volatile long shortSends;
    volatile long backPressureCancels;
    volatile long throttledRecvs;

    /** The transfers of {@code worker}'s sockets, receiving into buffer group {@code bufferGroup}, sending in chunks of up to {@code sendChunk} bytes. */
    RingTransfers(RingWorker worker, ConnectionTable connections, int bufferGroup, int sendChunk) {
        this.worker = worker;
        this.connections = connections;
        this.bufferGroup = bufferGroup;
        this.sendBuffers = new SendBuffers(sendChunk);
    }

    /** Starts submitting to the ring that {@code sq} belongs to, receiving into {@code buffers}. */
    void start(SubmissionQueue sq, BufferRing buffers) {
        this.sq = sq;
        this.buffers = buffers;
    }

    /**
     * Arms {@code c}'s recv (it has none armed): multishot, or single-shot while it is throttled
     * ({@link RingConnection#throttled}), as a streamed body whose consumer lags is.
     */
    void armRecv(RingConnection c) {
        if (c.throttled && c.core.state() == Connection.State.IDLE) {
            c.throttled = false;
        }
        if (c.throttled) {
            sq.recv(c.fd, bufferGroup, c.recvData);
            throttledRecvs++;
        } else {
            sq.multishotRecv(c.fd, bufferGroup, c.recvData);
        }
        c.recvArmed = true;
        c.inflight++;
        recvRearms++;
    }

    private void cancelRecv(RingConnection c) {
        sq.cancel(c.recvData, UserData.CANCEL_DATA);
        c.recvCancelling = true;
    }

    /** As {@code c} closes: cancels its recv and its send in flight; their completions free what they held. */
    void cancel(RingConnection c) {
        if (c.recvArmed && !c.recvCancelling) {
            cancelRecv(c);
        }
        if (c.sendInFlight) {
            sq.cancel(c.sendData, UserData.CANCEL_DATA);
        }
    }

    /** A recv completed: feeds the core what arrived, or the end of input; a stale or cancelled one only frees what it held. */
    void onRecv(long userData, int res, int flags) {
        int bid = (flags & LibUring.IORING_CQE_F_BUFFER()) != 0 ? flags >>> LibUring.IORING_CQE_BUFFER_SHIFT() : -1;
        RingConnection c = connections.lookup(userData);
        try {
            if (c == null) {
                return;
            }
            boolean more = (flags & LibUring.IORING_CQE_F_MORE()) != 0;
            if (!more) {
                c.recvArmed = false;
                c.recvCancelling = false;
                c.inflight--;
            }
            if (c.state == RingConnection.CLOSED) {
                worker.release(c);
                return;
            }
            if (res > 0) {
                boolean paused = !c.core.next().reads();
                // the core keeps (or, once finished, drops) what it did not want
                c.core.received(buffers.memory(), buffers.offset(bid), res);
                if (paused) {
                    // bytes keep coming while output is backed up, a handler runs or a body consumer lags: stop
                    // receiving, and take one buffer at a time until the core is idle again (else each re-arm
                    // hands it all the peer sent meanwhile, which it must buffer and grow for)
                    c.throttled = true;
                    if (c.recvArmed && !c.recvCancelling) {
                        cancelRecv(c);
                        backPressureCancels++;
                    }
                }
            } else if (res == 0) {
                c.core.endOfInput();
            } else if (res == -Libc.ENOBUFS()) {
                noBufferRearms++;
            } else if (res != -Libc.ECANCELED() && res != -Libc.EINTR() && res != -Libc.EAGAIN()) {
                log.debug("{}: recv on {} failed: {}", worker.name(), c, Errno.describe(-res));
                worker.close(c);
                return;
            }
            worker.markDirty(c);
        } catch (Throwable t) {
            worker.failed(c, t);
        } finally {
            if (bid >= 0) {
                buffers.recycle(bid);
            }
        }
    }

    /**
     * Copies as much of the core's pending output as one send buffer holds into it and submits the
     * send; false if nothing was pending. The bytes stay pending in the core until
     * {@link Connection#written} reports them, so the copy is always of its first pending bytes.
     */
    boolean submitSend(RingConnection c) {
        ByteBuffer out = c.core.outbound();
        int pending = out.remaining();
        if (pending == 0) {
            return false;
        }
        MemorySegment buffer = sendBuffers.acquire(pending);
        int length = (int) Math.min(pending, buffer.byteSize());
        if (out.hasArray()) {
            MemorySegment.copy(out.array(), out.arrayOffset() + out.position(), buffer, ValueLayout.JAVA_BYTE, 0, length);
        } else {
            MemorySegment.copy(MemorySegment.ofBuffer(out), 0, buffer, 0, length);
        }
        sq.send(c.fd, buffer, length, Libc.MSG_NOSIGNAL(), c.sendData);
        c.sendBuffer = buffer;
        c.sendLength = length;
        c.sendInFlight = true;
        c.inflight++;
        return true;
    }

    /** A send completed: tells the core how much went out; a stale or cancelled one only frees what it held. */
    void onSend(long userData, int res) {
        RingConnection c = connections.lookup(userData);
        if (c == null) {
            return;
        }
        c.sendInFlight = false;
        c.inflight--;
        if (c.sendBuffer != null) {
            sendBuffers.release(c.sendBuffer);
            c.sendBuffer = null;
        }
        if (c.state == RingConnection.CLOSED) {
            worker.release(c);
            return;
        }
        try {
            if (res < 0) {
                if (res == -Libc.EAGAIN() || res == -Libc.EINTR()) {
                    worker.markDirty(c);
                    return;
                }
                log.debug("{}: send on {} failed: {}", worker.name(), c, Errno.describe(-res));
                worker.close(c);
                return;
            }
            if (res < c.sendLength) {
                shortSends++;
            }
            // resumes the core by itself once the output is below the high-water mark
            c.core.written(res);
            worker.markDirty(c);
        } catch (Throwable t) {
            worker.failed(c, t);
        }
    }
}
