// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.Method;
import dev.spindle.core.Response;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.exchange.Deadlines;
import dev.spindle.core.exchange.EndRecord;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.ResponseState;
import dev.spindle.core.spi.Connection.FileRegion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The output side of an HTTP/1.1 connection: encodes responses into its output buffer, sends
 * streamed bodies (pulled from their producer, from a file region, or from the request's own
 * input array for a large echo), and hands the strategy what to write. It decides how a response
 * is framed (length, chunked, or the close for HTTP/1.0); the connection decides when.
 */
final class ResponseWriter {
    private static final Logger log = LoggerFactory.getLogger(ResponseWriter.class);
    /** Echoed bodies from this size on are sent from the input array; smaller ones are copied behind the head, so one write carries both. */
    static final int IN_PLACE_MIN = 64 * 1024;

    /** What {@link #respond} and {@link #pull} leave the connection to do. */
    enum Outcome {
        /** Carry on. */
        OK,
        /** The response is framed by the close (HTTP/1.0, no length): read no further request. */
        CLOSE_AFTER,
        /** The body cannot be sent (its file or producer failed): give up on the connection. */
        FAILED,
        /** The streamed body waits: for its producer, or for the socket to take what is pending. */
        WAIT
    }

    private final int highWater;
    private final Executor blockingExecutor;
    private final Runnable wakeup;
    private final Deadlines deadlines;
    /** Replaced by an empty one once the connection only lingers ({@link #shed()}). */
    private OutputBuffer out;
    private boolean transferFiles;
    /** A streamed response body being sent, or null. */
    private OutgoingBody outgoing;
    /** What {@link Response#sent()} handed out for {@link #outgoing}, or null. */
    private CompletableFuture<Long> outgoingSent;
    private boolean awaitingProducer;
    /** Every byte handed to the socket so far, the offsets answers' ends are counted in. */
    private long writtenTotal;
    /** The answers whose ends someone listens for and whose last byte is not written yet, oldest first. */
    private EndRecord endsHead;
    private EndRecord endsTail;

    ResponseWriter(int capacity, int highWater, Executor blockingExecutor, Runnable wakeup, Deadlines deadlines) {
        this.out = new OutputBuffer(capacity);
        this.highWater = highWater;
        this.blockingExecutor = blockingExecutor;
        this.wakeup = wakeup;
        this.deadlines = deadlines;
    }

    /** The buffer responses are encoded into, for answers the connection writes itself (errors, {@code 100 Continue}). */
    OutputBuffer buffer() {
        return out;
    }

    void transferFiles(boolean on) {
        transferFiles = on;
    }

    /** Bytes encoded and not yet written (not counting a streamed body's file or in-place region). */
    int pending() {
        return out.pending();
    }

    /** At or above the high-water mark: produce nothing more until the strategy has written some. */
    boolean full() {
        return out.pending() >= highWater;
    }

    /** A streamed body is being sent. */
    boolean sending() {
        return outgoing != null;
    }

    /** Nothing is pending and no body is being sent. */
    boolean idle() {
        return out.pending() == 0 && outgoing == null;
    }

    boolean awaitingProducer() {
        return awaitingProducer;
    }

    /** The body being sent is one its client ends by closing (an event stream): the connection reads meanwhile, to see that. */
    boolean sendingSource() {
        return outgoing instanceof OutgoingBody.SourceBody;
    }

    /** When the source being sent wants to be pulled without a wakeup (its heartbeat), or {@link Long#MAX_VALUE}. */
    long sourceDue() {
        return outgoing instanceof OutgoingBody.SourceBody source ? source.due() : Long.MAX_VALUE;
    }

    /** The server drains: a source being sent ends once what it queued has gone. */
    void drainSource() {
        if (outgoing instanceof OutgoingBody.SourceBody source) {
            source.drain();
        }
    }

    ByteBuffer outbound() {
        if (out.pending() == 0 && outgoing instanceof OutgoingBody.InPlaceBody body && body.count() > 0) {
            return body.view();
        }
        return out.view();
    }

    FileRegion outboundFile() {
        return fileReady() ? (OutgoingBody.FileBody) outgoing : null;
    }

    private boolean fileReady() {
        return transferFiles && out.pending() == 0 && outgoing instanceof OutgoingBody.FileBody f && f.count() > 0;
    }

    /** Whether bytes or a region wait to be written. */
    boolean hasOutbound() {
        return out.pending() > 0 || fileReady() || outgoing instanceof OutgoingBody.InPlaceBody body && body.count() > 0;
    }

    /** {@code bytes} of what {@link #outbound()} or {@link #outboundFile()} handed out were written. */
    void written(int bytes) {
        if (out.pending() > 0) {
            out.written(bytes);
        } else if (fileReady()) {
            OutgoingBody.FileBody file = (OutgoingBody.FileBody) outgoing;
            if (bytes > file.count()) {
                throw new IllegalArgumentException("written " + bytes + " of a " + file.count() + "-byte file region");
            }
            file.transferred(bytes);
        } else if (outgoing instanceof OutgoingBody.InPlaceBody body) {
            body.sent(bytes);
        } else {
            throw new IllegalArgumentException("written " + bytes + " bytes, but nothing was pending");
        }
        deadlines.outputActivity();
        writtenTotal += bytes;
        if (endsHead != null) {
            endWritten();
        }
    }

    /** The answers whose last byte is now written have ended. */
    private void endWritten() {
        while (endsHead != null && endsHead.endOffset >= 0 && endsHead.endOffset <= writtenTotal) {
            EndRecord done = endsHead;
            endsHead = done.next;
            if (endsHead == null) {
                endsTail = null;
            }
            done.end(ExchangeEnd.Outcome.COMPLETE);
        }
    }

    /**
     * Queues an answer's end, to be reported once its last byte is written: at what is pending
     * now, or (a streamed body) once its body ends.
     */
    private void track(EndRecord end, boolean streamed) {
        end.endOffset = streamed ? -1 : writtenTotal + out.pending();
        if (endsTail == null) {
            endsHead = end;
        } else {
            endsTail.next = end;
        }
        endsTail = end;
        if (!streamed && out.pending() == 0) {
            endWritten();
        }
    }

    /**
     * Encodes an answer the connection makes itself (a refusal, a timeout) with a close, and
     * reports its end once written.
     *
     * @param end its record, or null when nobody listens
     */
    void refusal(ResponseState res, boolean head, EndRecord end) {
        ResponseEncoder.encode(out, res, head, ResponseEncoder.CONNECTION_CLOSE);
        if (end != null) {
            end.responseBytes = head ? 0 : res.api.bodyLength();
            track(end, false);
        }
    }

    /**
     * Pulls more of the streamed body into the buffer, up to the high-water mark.
     *
     * @return {@link Outcome#OK} when the body is done, {@link Outcome#WAIT} when it must wait,
     *         {@link Outcome#FAILED} when its producer failed
     */
    Outcome pull() {
        if (out.pending() >= highWater && outgoing instanceof OutgoingBody.SourceBody source && source.failed()) {
            return Outcome.FAILED;
        }
        while (out.pending() < highWater) {
            if (transferFiles && outgoing instanceof OutgoingBody.FileBody file && file.count() > 0
                    || outgoing instanceof OutgoingBody.InPlaceBody body && body.count() > 0) {
                // the strategy sends it (transferTo, or from its array) once the bytes before it are written
                return Outcome.WAIT;
            }
            int r;
            try {
                r = outgoing.pull(out);
            } catch (IOException | RuntimeException e) {
                log.debug("streamed response body failed: {}", e.toString());
                return Outcome.FAILED;
            }
            if (r == OutgoingBody.WAIT) {
                // a source waits for its senders as long as its client stays: no producer's timeout
                awaitingProducer = !(outgoing instanceof OutgoingBody.SourceBody);
                return Outcome.WAIT;
            }
            deadlines.producerActivity();
            awaitingProducer = false;
            if (r == OutgoingBody.END) {
                outgoing.close();
                if (outgoingSent != null) {
                    outgoingSent.complete(outgoing.sentBytes());
                    outgoingSent = null;
                }
                if (endsTail != null && endsTail.endOffset < 0) {
                    endsTail.responseBytes = outgoing.sentBytes();
                    endsTail.endOffset = writtenTotal + out.pending();
                    endWritten();
                }
                outgoing = null;
                return Outcome.OK;
            }
        }
        return Outcome.WAIT;
    }

    /**
     * Encodes a handler's response (or the router's answer to its failure).
     *
     * @param in the connection's input, whose array a large echoed body is sent from
     * @param connection the {@code Connection} header to send ({@link ResponseEncoder}'s constants)
     * @param end the exchange's end record, reported once its last byte is written; null when nobody listens
     * @return {@link Outcome#OK}, {@link Outcome#CLOSE_AFTER} or {@link Outcome#FAILED}
     */
    Outcome respond(RequestState req, ResponseState res, InputBuffer in, int connection, EndRecord end) {
        boolean head = req.method == Method.HEAD;
        if (end != null) {
            end.responseBytes = head ? 0 : res.api.bodyLength();
            Outcome outcome = encode(req, res, in, connection, head);
            // tracked once encoded: what is pending then includes this answer's head (and body, unless it streams)
            track(end, outgoing != null);
            return outcome;
        }
        return encode(req, res, in, connection, head);
    }

    private Outcome encode(RequestState req, ResponseState res, InputBuffer in, int connection, boolean head) {
        if (res.api.isStreamed()) {
            CompletableFuture<Long> sent = res.takeSent();
            Outcome outcome = startStreamed(req, res, connection, head);
            if (sent != null) {
                if (outgoing != null) {
                    outgoingSent = sent;
                } else if (outcome == Outcome.FAILED) {
                    sent.completeExceptionally(new IOException("the body could not be sent"));
                } else {
                    sent.complete(0L);
                }
            }
            return outcome;
        }
        if (!head && sendsInPlace(req, res, in)) {
            ByteBuffer body = res.bodyBuffer;
            int length = body.remaining();
            ResponseEncoder.encodeStreamedHead(out, res, length, false, connection);
            byte[] array = in.ownArray();
            in.pin();
            outgoing = new OutgoingBody.InPlaceBody(array, req.base + req.bodyStart + body.position(), length,
                    () -> in.unpin(array));
        } else {
            ResponseEncoder.encode(out, res, head, connection);
        }
        return Outcome.OK;
    }

    /**
     * Whether the response sends back a large part of the request's own body (an echo), which lies
     * in this connection's input array: it is then written from there instead of copied, and the
     * input buffer leaves that array alone until it is sent.
     */
    private static boolean sendsInPlace(RequestState req, ResponseState res, InputBuffer in) {
        ByteBuffer body = res.bodyBuffer;
        return body != null && body == req.bodyView && body.remaining() >= IN_PLACE_MIN
                && res.status != 204 && res.status != 304 && req.array != null && req.array == in.ownArray();
    }

    private Outcome startStreamed(RequestState req, ResponseState res, int connection, boolean head) {
        long length = res.streamLength;
        boolean noContent = res.status == 204 || res.status == 304;
        boolean chunked = length < 0 && req.version == RequestState.HTTP_1_1;
        Outcome outcome = Outcome.OK;
        if (length < 0 && !chunked && !noContent && !head) {
            // HTTP/1.0 and no length: the close ends the body
            connection = ResponseEncoder.CONNECTION_CLOSE;
            outcome = Outcome.CLOSE_AFTER;
        }
        ResponseEncoder.encodeStreamedHead(out, res, noContent ? -1 : length, chunked && !noContent, connection);
        if (head || noContent) {
            res.closeStreamedBody();
            return outcome;
        }
        if (res.bodyFile != null) {
            try {
                outgoing = new OutgoingBody.FileBody(res.bodyFile, length);
            } catch (IOException e) {
                log.debug("the file to send failed: {}", e.toString());
                res.closeStreamedBody();
                return Outcome.FAILED;
            }
        } else if (res.bodySource != null) {
            outgoing = new OutgoingBody.SourceBody(res.bodySource, length, chunked);
            res.bodySource.start(blockingExecutor, wakeup);
        } else if (res.bodyWriter != null) {
            outgoing = OutgoingBody.PipedBody.start(res.bodyWriter, length, chunked, blockingExecutor, wakeup);
        } else if (blockingExecutor == null) {
            outgoing = new OutgoingBody.InlineStreamBody(res.bodyStream, length, chunked);
        } else {
            InputStream source = res.bodyStream;
            outgoing = OutgoingBody.PipedBody.start(sink -> {
                try (source) {
                    source.transferTo(sink);
                }
            }, length, chunked, blockingExecutor, wakeup);
        }
        res.bodyFile = null;
        res.bodyWriter = null;
        res.bodyStream = null;
        res.bodySource = null;
        deadlines.sendingStarted();
        return outcome;
    }

    /** Lets go of a streamed body: its producer stops, and whoever waits for its sending learns it failed. */
    void release() {
        while (endsHead != null) {
            EndRecord cut = endsHead;
            endsHead = cut.next;
            if (cut.endOffset < 0) {
                cut.responseBytes = -1;
            }
            cut.end(ExchangeEnd.Outcome.ABORTED);
        }
        endsTail = null;
        if (outgoing != null) {
            outgoing.close();
            outgoing = null;
        }
        if (outgoingSent != null) {
            outgoingSent.completeExceptionally(new IOException("the connection ended before the body was sent"));
            outgoingSent = null;
        }
    }

    /** A quiet connection lets go of its output array (a new one is made for the next answer). */
    void releaseBuffer() {
        out.release();
    }

    /** A lingering connection sends nothing more: the buffer goes. */
    void shed() {
        out = new OutputBuffer(0);
    }

    int capacity() {
        return out.capacity();
    }
}
