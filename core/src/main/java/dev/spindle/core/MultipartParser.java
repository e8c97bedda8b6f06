// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A {@code multipart/form-data} body (RFC 7578 over RFC 2046 5.1), parsed without I/O: fed
 * chunks as they arrive, it hands back events one at a time, like h11's {@code next_event}. A
 * part's content comes as ranges of the chunk fed (no copy), except a few bytes held back at a
 * chunk's end because they might begin a delimiter; so its memory is one part header section
 * ({@link MultipartOptions#maxHeaderSize}) whatever the parts' sizes. The delimiter is found with
 * Boyer-Moore-Horspool; only a CR can begin one, since a boundary has no CR.
 *
 * <p>Use: {@link #feed} a chunk, then call {@link #next} until it answers {@link #NEED_INPUT} (the
 * chunk may be reused then); at the end of the body, {@link #finish}. Limits and malformed input
 * throw {@link HttpException} (413, 400). Not thread-safe.
 */
final class MultipartParser {
    /** Feed the next chunk (or {@link #finish} at the end of the body). */
    static final int NEED_INPUT = 0;
    /** A part's header section was read: {@link #part()}. */
    static final int PART = 1;
    /** Content of the current part: {@link #dataArray()}, {@link #dataOffset()}, {@link #dataLength()}. */
    static final int DATA = 2;
    /** The current part's content is complete. */
    static final int PART_END = 3;
    /** The close delimiter: no part follows (the epilogue is skipped). */
    static final int END = 4;

    private static final int PREAMBLE = 0;
    private static final int CONTENT = 1;
    private static final int AFTER_DELIMITER = 2;
    private static final int CLOSE_DASH = 3;
    private static final int PADDING = 4;
    private static final int LINE_FEED = 5;
    private static final int HEADERS = 6;
    private static final int EPILOGUE = 7;

    private final MultipartOptions limits;
    /** CR LF "--" boundary: what separates parts (RFC 2046's delimiter). */
    private final byte[] delimiter;
    /** Boyer-Moore-Horspool: how far the window may move for its last byte. */
    private final int[] skip = new int[256];
    private final byte[] head;

    private byte[] in;
    private int pos;
    private int limit;
    private int state = PREAMBLE;
    /**
     * How many bytes of {@link #delimiter} the input has matched so far at its end. The body
     * starts as if after a CRLF, so a first boundary line at its very start is found too.
     */
    private int matched = 2;
    /**
     * How many of the {@link #matched} bytes are not content: the CRLF ending a header section (or
     * the virtual one before the body), which may be a delimiter's own, as when a part has no content.
     */
    private int virtual = 2;
    private int headLength;
    private Part part;
    private int parts;
    private long partBytes;
    private long total;
    private byte[] dataArray;
    private int dataOffset;
    private int dataLength;
    /** Where {@link #search} found the delimiter's first bytes ending the input, or -1. */
    private int partialAt = -1;

    MultipartParser(String boundary, MultipartOptions limits) {
        this.limits = limits;
        byte[] b = boundary.getBytes(StandardCharsets.US_ASCII);
        delimiter = new byte[b.length + 4];
        delimiter[0] = '\r';
        delimiter[1] = '\n';
        delimiter[2] = '-';
        delimiter[3] = '-';
        System.arraycopy(b, 0, delimiter, 4, b.length);
        int m = delimiter.length;
        Arrays.fill(skip, m);
        for (int i = 0; i < m - 1; i++) {
            skip[delimiter[i] & 0xFF] = m - 1 - i;
        }
        head = new byte[limits.maxHeaderSize()];
    }

    /**
     * The next chunk of the body: {@code b[off, off + len)}, read until {@link #next} answers
     * {@link #NEED_INPUT}.
     *
     * @throws HttpException 413 when the body grows past {@link MultipartOptions#maxRequestSize}
     */
    void feed(byte[] b, int off, int len) {
        total += len;
        if (total > limits.maxRequestSize()) {
            throw new HttpException(413, "the multipart body is larger than " + limits.maxRequestSize() + " bytes");
        }
        in = b;
        pos = off;
        limit = off + len;
    }

    /**
     * The body has ended.
     *
     * @throws HttpException 400 unless the close delimiter came
     */
    void finish() {
        if (state != EPILOGUE) {
            throw new HttpException(400, parts == 0 && state == PREAMBLE ? "the multipart body has no boundary line"
                    : "the multipart body ends before its closing boundary");
        }
    }

    /** {@return whether the close delimiter has come (the rest is epilogue)} */
    boolean ended() {
        return state == EPILOGUE;
    }

    /**
     * The next event from what was fed.
     *
     * @return {@link #NEED_INPUT}, {@link #PART}, {@link #DATA}, {@link #PART_END} or {@link #END}
     * @throws HttpException 400 for malformed input, 413 past a limit
     */
    int next() {
        while (true) {
            switch (state) {
                case PREAMBLE, CONTENT -> {
                    int event = content();
                    if (event >= 0) {
                        return event;
                    }
                }
                case AFTER_DELIMITER -> {
                    if (pos == limit) {
                        return NEED_INPUT;
                    }
                    if (in[pos] == '-') {
                        pos++;
                        state = CLOSE_DASH;
                    } else {
                        state = PADDING;
                    }
                }
                case CLOSE_DASH -> {
                    if (pos == limit) {
                        return NEED_INPUT;
                    }
                    if (in[pos++] != '-') {
                        throw new HttpException(400, "a boundary line followed by a single '-'");
                    }
                    state = EPILOGUE;
                    return END;
                }
                case PADDING -> {
                    while (pos < limit && (in[pos] == ' ' || in[pos] == '\t')) {
                        pos++;
                    }
                    if (pos == limit) {
                        return NEED_INPUT;
                    }
                    if (in[pos++] != '\r') {
                        throw new HttpException(400, "a boundary line with text after the boundary");
                    }
                    state = LINE_FEED;
                }
                case LINE_FEED -> {
                    if (pos == limit) {
                        return NEED_INPUT;
                    }
                    if (in[pos++] != '\n') {
                        throw new HttpException(400, "a boundary line ending in CR without LF");
                    }
                    if (parts == limits.maxParts()) {
                        throw new HttpException(413, "the multipart body has more than " + limits.maxParts() + " parts");
                    }
                    parts++;
                    headLength = 0;
                    state = HEADERS;
                }
                case HEADERS -> {
                    if (!header()) {
                        return NEED_INPUT;
                    }
                    part = MultipartHeaders.part(head, headLength, limits.maxHeaderCount());
                    partBytes = 0;
                    // the blank line's CRLF may be the delimiter's: a part without content
                    matched = 2;
                    virtual = 2;
                    state = CONTENT;
                    return PART;
                }
                default -> {
                    pos = limit;
                    return NEED_INPUT;
                }
            }
        }
    }

    /** Copies header bytes until the blank line; true once the section is whole. */
    private boolean header() {
        while (pos < limit) {
            if (headLength == head.length) {
                throw new HttpException(413, "a part's header section is larger than " + head.length + " bytes");
            }
            byte b = in[pos++];
            head[headLength++] = b;
            if (b == '\n' && head[headLength - 2] == '\r'
                    && (headLength == 2 || headLength >= 4 && head[headLength - 3] == '\n' && head[headLength - 4] == '\r')) {
                return true;
            }
        }
        return false;
    }

    /**
     * Scans content (or the preamble, which is dropped) for the delimiter: an event, or -1 to go
     * on in the new state.
     */
    private int content() {
        int m = delimiter.length;
        if (matched > 0) {
            int n = Math.min(m - matched, limit - pos);
            int i = 0;
            while (i < n && in[pos + i] == delimiter[matched + i]) {
                i++;
            }
            if (i == m - matched) {
                pos += i;
                matched = 0;
                virtual = 0;
                return delimiterFound();
            }
            if (i == n) {
                pos += i;
                matched += i;
                return NEED_INPUT;
            }
            // not a delimiter: what was held back is content; no byte of it (nor of in[pos, pos + i)) can begin one
            int held = matched;
            int skipped = virtual;
            matched = 0;
            virtual = 0;
            return held > skipped ? data(delimiter, skipped, held - skipped) : -1;
        }
        if (pos == limit) {
            return NEED_INPUT;
        }
        int from = pos;
        int found = search(in, from, limit);
        if (found == from) {
            pos += m;
            return delimiterFound();
        }
        if (found > from) {
            pos = found;
        } else {
            pos = limit;
            if (partialAt >= 0) {
                // the input ends with the delimiter's first bytes: hold them back until the next chunk says
                matched = limit - partialAt;
            }
        }
        int end = found > from ? found : partialAt >= 0 ? partialAt : limit;
        return end > from ? data(in, from, end - from) : NEED_INPUT;
    }

    private int data(byte[] array, int offset, int length) {
        if (state == PREAMBLE) {
            return -1;
        }
        partBytes += length;
        if (partBytes > limits.maxPartSize()) {
            throw new HttpException(413, "part '" + part.name() + "' is larger than " + limits.maxPartSize() + " bytes");
        }
        dataArray = array;
        dataOffset = offset;
        dataLength = length;
        return DATA;
    }

    private int delimiterFound() {
        boolean inPart = state == CONTENT;
        state = AFTER_DELIMITER;
        return inPart ? PART_END : -1;
    }

    /**
     * The first whole delimiter in {@code b[from, to)}, or -1; when -1, {@link #partialAt} is where
     * its first bytes end the input, if they do.
     */
    private int search(byte[] b, int from, int to) {
        byte[] d = delimiter;
        int last = d.length - 1;
        int i = from;
        while (i + last < to) {
            int j = last;
            while (j >= 0 && b[i + j] == d[j]) {
                j--;
            }
            if (j < 0) {
                partialAt = -1;
                return i;
            }
            i += skip[b[i + last] & 0xFF];
        }
        for (int p = Math.max(i, to - last); p < to; p++) {
            if (b[p] == '\r' && Arrays.equals(b, p, to, d, 0, to - p)) {
                partialAt = p;
                return -1;
            }
        }
        partialAt = -1;
        return -1;
    }

    /** {@return the part whose header section {@link #PART} announced} */
    Part part() {
        return part;
    }

    /** {@return the array of the {@link #DATA} just announced: the chunk fed, or the parser's own} */
    byte[] dataArray() {
        return dataArray;
    }

    int dataOffset() {
        return dataOffset;
    }

    int dataLength() {
        return dataLength;
    }
}
