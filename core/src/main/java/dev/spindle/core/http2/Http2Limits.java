// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.ServerConfig;
import java.util.concurrent.TimeUnit;

/**
 * What an HTTP/2 connection advertises and enforces. The values follow what Netty, Jetty and
 * Helidon use: at most 128 concurrent streams (Jetty's default; Netty advertises none, Helidon
 * 8,192), a 64 KiB stream window and a 1 MiB connection window (Jetty: 512 KiB / 1 MiB), frames
 * of 16 KiB, and Netty's limit of 200 resets per 30 seconds against Rapid Reset, here net of the
 * streams answered meanwhile: a client whose resets are matched by requests it lets finish (a
 * browser cancelling a page's requests and asking for the next page's) costs what its requests
 * cost, while one that only resets (Rapid Reset, MadeYouReset) reaches the limit as fast as before.
 *
 * @param maxConcurrentStreams SETTINGS_MAX_CONCURRENT_STREAMS; streams past it are refused
 * @param streamWindow SETTINGS_INITIAL_WINDOW_SIZE: what a stream may send before its handler consumes
 * @param connectionWindow the connection's receive window, raised from 65,535 by a WINDOW_UPDATE at the start
 * @param maxFrameSize SETTINGS_MAX_FRAME_SIZE
 * @param headerTableSize SETTINGS_HEADER_TABLE_SIZE, and the largest table the encoder uses
 * @param maxHeaderListSize SETTINGS_MAX_HEADER_LIST_SIZE: a larger header list is answered 431
 * @param maxHeaderBlockSize the largest compressed header block accepted; past it the connection ends
 * @param maxContinuationFrames CONTINUATION frames one header block may take
 * @param resetsPerWindow streams the peer may reset, or make the server reset, per 30 seconds, beyond
 *        the streams answered in that time
 * @param controlFramesPerWindow SETTINGS and PING frames the peer may send per 30 seconds
 * @param maxEmptyFrames consecutive DATA frames with neither payload nor END_STREAM
 * @param maxAbandonedHandlers handlers of reset streams still running that a connection keeps; past
 *        them new streams are refused until some end. Apart from, and larger than,
 *        {@code maxConcurrentStreams}: a reset stream gives the peer its slot back at once
 * @param refusalsPerWindow streams the server may refuse (REFUSED_STREAM) per 30 seconds: its own
 *        refusals are no resets of the peer's, but a peer that keeps opening streams past the limits
 *        ends its connection all the same
 */
record Http2Limits(int maxConcurrentStreams, int streamWindow, int connectionWindow, int maxFrameSize,
        int headerTableSize, int maxHeaderListSize, int maxHeaderBlockSize, int maxContinuationFrames,
        int resetsPerWindow, int controlFramesPerWindow, int maxEmptyFrames, int maxAbandonedHandlers, int refusalsPerWindow) {

    /** The window over which resets and control frames are counted. */
    static final long RESET_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(30);

    static Http2Limits of(ServerConfig config) {
        int headerList = Math.max(config.maxHeaderSize(), 4096);
        int streams = config.http2MaxConcurrentStreams();
        return new Http2Limits(streams, 65_535, 1 << 20, 16_384, 4096, headerList, headerList + 1024, 32, 200, 1000, 4,
                (int) Math.min(Integer.MAX_VALUE, 4L * streams), 1000);
    }
}
