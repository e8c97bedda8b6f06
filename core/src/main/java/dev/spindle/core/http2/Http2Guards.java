// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

/**
 * What bounds a connection's input: the receive windows (given back in WINDOW_UPDATEs only for
 * what was consumed), the rates of resets (net of the streams answered), of refused streams and of
 * SETTINGS and PING frames, the run of empty frames, and the streams that ended lately (so late frames on them get the answer RFC 9113 5.1
 * gives, not a new stream).
 */
final class Http2Guards {
    private final Http2Limits limits;
    private final WireBuffer out;
    /** How many more DATA octets the peer may send on the connection. */
    private int receiveWindow;
    /** Octets consumed that the peer has not been given back on the connection yet. */
    private int unacknowledged;
    private final RateCounter resets;
    private final RateCounter refusals;
    private final RateCounter controlFrames;
    private int emptyFrames;
    /** Streams this side reset lately: frames the peer sent before it learnt of the reset are ignored. */
    private final IdRing recentlyReset = new IdRing(32);
    /** Streams that ended lately (both sides done, or reset by the peer): frames on them are STREAM_CLOSED errors. */
    private final IdRing recentlyClosed = new IdRing(64);

    Http2Guards(Http2Limits limits, WireBuffer out) {
        this.limits = limits;
        this.out = out;
        this.receiveWindow = limits.connectionWindow();
        this.resets = new RateCounter(limits.resetsPerWindow(), Http2Limits.RESET_WINDOW_NANOS);
        this.refusals = new RateCounter(limits.refusalsPerWindow(), Http2Limits.RESET_WINDOW_NANOS);
        this.controlFrames = new RateCounter(limits.controlFramesPerWindow(), Http2Limits.RESET_WINDOW_NANOS);
    }

    /** {@code n} flow-controlled octets of DATA arrived on the connection. */
    void receiving(int n) throws Http2Exception {
        if (n > receiveWindow) {
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection's window");
        }
        receiveWindow -= n;
    }

    /**
     * {@code n} received octets were consumed: given back to the peer in WINDOW_UPDATEs once half
     * a window is due, on the connection and on {@code s} (null: the connection's only, as for a
     * stream that ended).
     */
    void consumed(Stream s, int n) {
        if (n <= 0) {
            return;
        }
        unacknowledged += n;
        if (unacknowledged >= limits.connectionWindow() / 2) {
            Frames.windowUpdate(out, 0, unacknowledged);
            receiveWindow += unacknowledged;
            unacknowledged = 0;
        }
        if (s != null) {
            streamConsumed(s, n);
        }
    }

    /** The stream's part of {@link #consumed}: given back on {@code s} alone (a WebSocket's window held while it is behind). */
    void streamConsumed(Stream s, int n) {
        if (n > 0 && !s.remoteClosed()) {
            s.unacknowledged += n;
            if (s.unacknowledged >= limits.streamWindow() / 2) {
                Frames.windowUpdate(out, s.id, s.unacknowledged);
                s.receiveWindow += s.unacknowledged;
                s.unacknowledged = 0;
            }
        }
    }

    /** A DATA frame with {@code n} octets of payload: a run of empty ones without END_STREAM is a flood. */
    void dataFrame(int n, boolean endStream) throws Http2Exception {
        if (n == 0 && !endStream && ++emptyFrames > limits.maxEmptyFrames()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many empty DATA frames");
        } else if (n > 0) {
            emptyFrames = 0;
        }
    }

    /** A frame that ends a run of empty ones (HEADERS, WINDOW_UPDATE). */
    void progress() {
        emptyFrames = 0;
    }

    /** A stream was reset, by either side: a client that makes the server reset streams is limited as one that resets them (MadeYouReset). */
    void countReset() throws Http2Exception {
        if (!resets.add(System.nanoTime())) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many streams reset");
        }
    }

    /**
     * A stream's response was sent whole: it makes up for one reset of the window. Rapid Reset
     * costs the server a dispatch per reset with nothing answered; a client answered as often as
     * it resets costs no more than its requests.
     */
    void answered() {
        resets.giveBack();
    }

    /** The server refused a stream (REFUSED_STREAM): its own doing, counted apart from the peer's resets. */
    void countRefusal() throws Http2Exception {
        if (!refusals.add(System.nanoTime())) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many streams opened past the limit");
        }
    }

    /** A SETTINGS or PING frame that asks for an answer. */
    void countControlFrame() throws Http2Exception {
        if (!controlFrames.add(System.nanoTime())) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many SETTINGS or PING frames");
        }
    }

    /** This side sent RST_STREAM on {@code streamId}. */
    void resetSent(int streamId) {
        recentlyReset.add(streamId);
    }

    boolean wasReset(int streamId) {
        return recentlyReset.contains(streamId);
    }

    /** Stream {@code streamId} left the connection's streams. */
    void closed(int streamId) {
        recentlyClosed.add(streamId);
    }

    boolean wasClosed(int streamId) {
        return recentlyClosed.contains(streamId);
    }
}
