// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

/**
 * An incremental parser of an SSE stream's body: the chunked transfer coding (or none), then the
 * event stream's lines (CR, LF or CRLF), a blank line ending an event. Only the {@code data} field is
 * looked at, and only counted: its length (lines joined by LF) and the decimal sequence number in its
 * first {@code seqWidth} bytes. Comments and other fields are skipped. Bytes may be split anywhere.
 */
final class SseParser {
    /** What the parser found. */
    interface Sink {
        /** An event with a data field of {@code length} bytes; {@code seq} is -1 when it began with no sequence number. */
        void onEvent(long length, long seq);

        /** The last chunk: the server ended the stream. */
        void onEnd();

        void onProtocolError(String kind);
    }

    private static final int SIZE = 0;
    private static final int SIZE_EXT = 1;
    private static final int SIZE_LF = 2;
    private static final int DATA = 3;
    private static final int DATA_CR = 4;
    private static final int DATA_LF = 5;
    private static final int TRAILER = 6;
    private static final int DONE = 7;

    private static final byte[] DATA_NAME = {'d', 'a', 't', 'a'};
    private static final int NAME = 0;
    private static final int VALUE_START = 1;
    private static final int VALUE = 2;
    private static final int SKIP = 3;

    private final Sink sink;
    private final int seqWidth;
    private final boolean chunked;
    private int chunkState = SIZE;
    private long chunkRemaining;
    private int sizeDigits;
    private int trailerLineLength;

    private int lineState = NAME;
    private int nameLength;
    private boolean nameIsData;
    private boolean lastWasCr;
    private boolean hasData;
    private long dataLength;
    private long seq;
    private int seqDigits;
    private boolean seqBad;

    SseParser(Sink sink, int seqWidth, boolean chunked) {
        this.sink = sink;
        this.seqWidth = seqWidth;
        this.chunked = chunked;
    }

    /** Parses {@code b[from, to)} of the response body. */
    void feed(byte[] b, int from, int to) {
        if (!chunked) {
            events(b, from, to);
            return;
        }
        int i = from;
        while (i < to) {
            switch (chunkState) {
                case SIZE -> {
                    byte c = b[i++];
                    int d = Character.digit(c, 16);
                    if (d >= 0) {
                        if (++sizeDigits > 15) {
                            fail("chunk_size");
                            return;
                        }
                        chunkRemaining = chunkRemaining * 16 + d;
                    } else if (sizeDigits > 0 && (c == ';' || c == ' ' || c == '\t')) {
                        chunkState = SIZE_EXT;
                    } else if (sizeDigits > 0 && c == '\r') {
                        chunkState = SIZE_LF;
                    } else {
                        fail("chunk_size");
                        return;
                    }
                }
                case SIZE_EXT -> {
                    if (b[i++] == '\r') {
                        chunkState = SIZE_LF;
                    }
                }
                case SIZE_LF -> {
                    if (b[i++] != '\n') {
                        fail("chunk_size");
                        return;
                    }
                    sizeDigits = 0;
                    if (chunkRemaining == 0) {
                        chunkState = TRAILER;
                        trailerLineLength = 0;
                    } else {
                        chunkState = DATA;
                    }
                }
                case DATA -> {
                    int n = (int) Math.min(chunkRemaining, to - i);
                    events(b, i, i + n);
                    i += n;
                    chunkRemaining -= n;
                    if (chunkRemaining == 0) {
                        chunkState = DATA_CR;
                    }
                }
                case DATA_CR, DATA_LF -> {
                    byte want = chunkState == DATA_CR ? (byte) '\r' : (byte) '\n';
                    if (b[i++] != want) {
                        fail("chunk_end");
                        return;
                    }
                    chunkState = chunkState == DATA_CR ? DATA_LF : SIZE;
                }
                case TRAILER -> {
                    byte c = b[i++];
                    if (c == '\n') {
                        if (trailerLineLength == 0) {
                            chunkState = DONE;
                            sink.onEnd();
                            return;
                        }
                        trailerLineLength = 0;
                    } else if (c != '\r') {
                        trailerLineLength++;
                    }
                }
                default -> {
                    return;
                }
            }
        }
    }

    /** Ignores every later byte (the connection is closing). */
    void stop() {
        chunkState = DONE;
    }

    private void events(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c == '\n' && lastWasCr) {
                lastWasCr = false;
                continue;
            }
            lastWasCr = c == '\r';
            if (c == '\r' || c == '\n') {
                endLine();
                continue;
            }
            switch (lineState) {
                case NAME -> {
                    if (c == ':') {
                        lineState = nameLength == 0 ? SKIP : startValue();
                    } else {
                        nameIsData = nameLength < DATA_NAME.length && c == DATA_NAME[nameLength] && (nameLength == 0 || nameIsData);
                        nameLength++;
                    }
                }
                case VALUE_START -> {
                    lineState = VALUE;
                    if (c != ' ') {
                        value(c);
                    }
                }
                case VALUE -> value(c);
                default -> {
                }
            }
        }
    }

    private int startValue() {
        if (!isData()) {
            return SKIP;
        }
        if (hasData) {
            value((byte) '\n');
        }
        hasData = true;
        return VALUE_START;
    }

    private boolean isData() {
        return nameIsData && nameLength == DATA_NAME.length;
    }

    private void value(byte c) {
        if (seqDigits < seqWidth) {
            int d = c - '0';
            if (d < 0 || d > 9) {
                seqBad = true;
            }
            seq = seq * 10 + d;
            seqDigits++;
        }
        dataLength++;
    }

    private void endLine() {
        if (lineState == NAME) {
            if (nameLength == 0) {
                dispatch();
            } else if (isData()) {
                // "data" alone on a line is the field with an empty value.
                startValue();
            }
        }
        lineState = NAME;
        nameLength = 0;
        nameIsData = false;
    }

    private void dispatch() {
        if (hasData) {
            boolean numbered = seqWidth > 0 && !seqBad && seqDigits == seqWidth;
            sink.onEvent(dataLength, numbered ? seq : -1);
        }
        hasData = false;
        dataLength = 0;
        seq = 0;
        seqDigits = 0;
        seqBad = false;
    }

    private void fail(String kind) {
        chunkState = DONE;
        sink.onProtocolError(kind);
    }
}
