// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.exchange.RequestState;
import java.lang.foreign.MemorySegment;

/**
 * A request's body after its header section (RFC 9112 6.2, 7.1): a Content-Length body, or the
 * chunked transfer coding (chunk-size lines with extensions, chunk data and the CRLF after it, the
 * last chunk, trailer fields checked and dropped), within the request's body limit (413). Either
 * buffered ({@link #parse}: chunks are joined in place, so the body is one range of the input) or
 * streamed ({@link #stream}: decoded bytes go to a {@link BodySink} and are consumed from the input
 * as it takes them). Like its {@link RequestParser}, it resumes where it stopped; one is made per
 * parser and reused for every request.
 */
final class BodyDecoder extends LineScanner {
    /** Takes decoded body bytes; returns how many it took (fewer when it is full). */
    interface BodySink {
        int accept(MemorySegment data, byte[] array, long offset, int length);
    }

    private static final int MAX_CHUNK_LINE = 4096;

    private enum State { LENGTH, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS }

    /** Trailers are limited like the header section. */
    private final int maxTrailerSize;
    private final long defaultLimit;
    /** The current request's body limit: {@link #defaultLimit} until {@link #limit} sets the route's. */
    private long maxBody;

    private State state = State.LENGTH;
    private long chunkRemaining;
    /** Streaming mode: body bytes decoded so far, and bytes of a Content-Length body still to come. */
    private long streamed;
    private long bodyRemaining;
    private int trailerBytes;

    BodyDecoder(ServerConfig config) {
        this.maxTrailerSize = config.maxHeaderSize();
        this.defaultLimit = config.maxBodySize();
        this.maxBody = defaultLimit;
    }

    /** A body begins at {@code bodyStart} of the input, its length announced or chunked; the server's limit holds. */
    void begin(boolean chunked, int bodyStart) {
        state = chunked ? State.CHUNK_SIZE : State.LENGTH;
        pos = bodyStart;
        lineStart = bodyStart;
        maxBody = defaultLimit;
    }

    /**
     * The largest body this request may have, in place of {@link ServerConfig#maxBodySize()}.
     *
     * @throws HttpException 413 if the announced length is larger
     */
    void limit(long limit, RequestState req) {
        maxBody = limit;
        if (req.contentLength > limit) {
            throw tooLarge();
        }
    }

    private HttpException tooLarge() {
        return new HttpException(413, "body larger than " + maxBody + " bytes");
    }

    /**
     * Buffers as much of the body as has arrived, joining chunks in place after {@code req.bodyStart}
     * ({@code req.bodyEnd} grows with them). True once the body is whole; {@link #pos} is then the
     * end of the request.
     */
    boolean parse(InputBuffer in, RequestState req) {
        MemorySegment d = in.memory;
        heap = in.array;
        int b = in.start;
        int avail = in.end - in.start;
        while (true) {
            switch (state) {
                case LENGTH -> {
                    if (req.contentLength > maxBody) {
                        throw tooLarge();
                    }
                    if (avail - req.bodyStart < req.contentLength) {
                        return false;
                    }
                    req.bodyEnd = req.bodyStart + (int) req.contentLength;
                    pos = req.bodyEnd;
                    return true;
                }
                case CHUNK_SIZE -> {
                    int lf = findLf(d, b, avail, MAX_CHUNK_LINE, 400, "chunk size line too long");
                    if (lf < 0) {
                        return false;
                    }
                    requireCr(d, b, lf);
                    chunk(chunkSize(d, b + lineStart, b + lf - 1, req.bodyEnd - req.bodyStart));
                    pos = lf + 1;
                    lineStart = pos;
                }
                case CHUNK_DATA -> {
                    int n = (int) Math.min(chunkRemaining, avail - pos);
                    if (n == 0) {
                        return false;
                    }
                    if (in.isLent()) {
                        // chunks are joined by moving bytes; never write to memory the caller lent
                        in.keepTail();
                        d = in.memory;
                        heap = in.array;
                        b = in.start;
                    }
                    MemorySegment.copy(d, b + pos, d, b + req.bodyEnd, n);
                    req.bodyEnd += n;
                    pos += n;
                    chunkRemaining -= n;
                    if (chunkRemaining == 0) {
                        state = State.CHUNK_END;
                    }
                }
                case CHUNK_END -> {
                    if (avail - pos < 2) {
                        return false;
                    }
                    chunkEnd(d, b + pos);
                    pos += 2;
                    lineStart = pos;
                }
                case TRAILERS -> {
                    int lf = findLf(d, b, avail, maxTrailerSize - trailerBytes, 431, "trailer section too large");
                    if (lf < 0) {
                        return false;
                    }
                    requireCr(d, b, lf);
                    if (lf - 1 == lineStart) {
                        pos = lf + 1;
                        return true;
                    }
                    trailer(d, b, lineStart, lf - 1);
                    pos = lf + 1;
                    trailerBytes += pos - lineStart;
                    lineStart = pos;
                }
            }
        }
    }

    /**
     * After {@link #begin}: the body will be read with {@link #stream}, from the start of the input
     * (the header section is consumed).
     */
    void beginStreaming(RequestState req) {
        streamed = 0;
        bodyRemaining = req.chunked ? -1 : req.contentLength;
        pos = 0;
        lineStart = 0;
    }

    /**
     * Streaming mode: decodes as much of the body as has arrived and the sink takes, consuming it
     * from {@code in}. True at the end of the body (trailers included); false when more input, or
     * room in the sink, is needed.
     */
    boolean stream(InputBuffer in, BodySink sink) {
        while (true) {
            MemorySegment d = in.memory;
            heap = in.array;
            int b = in.start;
            int avail = in.end - in.start;
            switch (state) {
                case LENGTH -> {
                    int n = (int) Math.min(bodyRemaining, avail);
                    if (n == 0) {
                        return false;
                    }
                    int taken = sink.accept(d, heap, b, n);
                    in.consumeBody(taken);
                    bodyRemaining -= taken;
                    streamed += taken;
                    if (bodyRemaining == 0) {
                        return true;
                    }
                    if (taken < n) {
                        return false;
                    }
                }
                case CHUNK_SIZE -> {
                    int lf = findLf(d, b, avail, MAX_CHUNK_LINE, 400, "chunk size line too long");
                    if (lf < 0) {
                        return false;
                    }
                    requireCr(d, b, lf);
                    chunk(chunkSize(d, b, b + lf - 1, streamed));
                    in.consumeBody(lf + 1);
                    pos = 0;
                    lineStart = 0;
                }
                case CHUNK_DATA -> {
                    int n = (int) Math.min(chunkRemaining, avail);
                    if (n == 0) {
                        return false;
                    }
                    int taken = sink.accept(d, heap, b, n);
                    in.consumeBody(taken);
                    chunkRemaining -= taken;
                    streamed += taken;
                    if (chunkRemaining == 0) {
                        state = State.CHUNK_END;
                    } else if (taken < n) {
                        return false;
                    }
                }
                case CHUNK_END -> {
                    if (avail < 2) {
                        return false;
                    }
                    chunkEnd(d, b);
                    in.consumeBody(2);
                }
                case TRAILERS -> {
                    int lf = findLf(d, b, avail, maxTrailerSize - trailerBytes, 431, "trailer section too large");
                    if (lf < 0) {
                        return false;
                    }
                    requireCr(d, b, lf);
                    if (lf == 1) {
                        in.consumeBody(2);
                        return true;
                    }
                    trailer(d, b, 0, lf - 1);
                    trailerBytes += lf + 1;
                    in.consumeBody(lf + 1);
                    pos = 0;
                    lineStart = 0;
                }
            }
        }
    }

    /** A chunk of {@code size} bytes follows; the last chunk (size 0) starts the trailer section. */
    private void chunk(long size) {
        chunkRemaining = size;
        if (size == 0) {
            trailerBytes = 0;
            state = State.TRAILERS;
        } else {
            state = State.CHUNK_DATA;
        }
    }

    /** The CRLF after a chunk's data, at {@code i}; the next chunk-size line follows. */
    private void chunkEnd(MemorySegment d, int i) {
        if (at(d, i) != '\r' || at(d, i + 1) != '\n') {
            throw new HttpException(400, "chunk data not followed by CRLF");
        }
        state = State.CHUNK_SIZE;
    }

    /** A trailer field line is checked like a header's, then dropped. */
    private void trailer(MemorySegment d, int b, int start, int end) {
        int nameEnd = fieldName(d, b, start, end);
        valueEnd(d, b, valueStart(d, b, nameEnd, end), end);
    }

    private long chunkSize(MemorySegment d, int from, int to, long bodySoFar) {
        long size = 0;
        int i = from;
        while (i < to && Ascii.hexValue(at(d, i)) >= 0) {
            // Another digit must not shift a bit into the sign: a negative size would pass the body limit.
            if (size > 0x07FFFFFF_FFFFFFFFL) {
                throw new HttpException(400, "chunk size overflows");
            }
            size = size << 4 | Ascii.hexValue(at(d, i));
            i++;
        }
        if (i == from) {
            throw new HttpException(400, "invalid chunk size");
        }
        while (i < to && Ascii.isWhitespace(at(d, i))) {
            i++;
        }
        if (i < to) {
            if (at(d, i) != ';') {
                throw new HttpException(400, "invalid chunk size");
            }
            for (i++; i < to; i++) {
                if (!Ascii.isFieldValueChar(at(d, i))) {
                    throw new HttpException(400, "invalid character in chunk extension");
                }
            }
        }
        if (size > maxBody - bodySoFar) {
            throw tooLarge();
        }
        return size;
    }
}
