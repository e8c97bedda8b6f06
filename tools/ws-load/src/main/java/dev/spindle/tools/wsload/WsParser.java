// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

/**
 * An incremental parser of server-to-client WebSocket frames: bytes may be split anywhere, the state
 * is a few fields per connection, and a payload is never copied, only counted (the first
 * {@code seqWidth} bytes of a text message are read as its decimal sequence number). Control frames
 * (at most 125 bytes) are the exception: their payload is kept for the pong or the close code.
 */
final class WsParser {
    /** What the parser found. */
    interface Sink {
        /** A whole text message of {@code length} bytes; {@code seq} is -1 when its start was no sequence number. */
        void onText(long length, long seq);

        void onPing(byte[] payload, int length);

        void onClose(int code);

        void onProtocolError(String kind);
    }

    private static final int HEAD0 = 0;
    private static final int HEAD1 = 1;
    private static final int EXT_LEN = 2;
    private static final int PAYLOAD = 3;
    private static final int FAILED = 4;

    private final Sink sink;
    private final int seqWidth;
    private int state = HEAD0;
    private int opcode;
    private boolean fin;
    private int extRemaining;
    private long remaining;
    private boolean inMessage;
    private long messageLength;
    private long seq;
    private int seqDigits;
    private boolean seqBad;
    private byte[] control;
    private int controlLength;

    WsParser(Sink sink, int seqWidth) {
        this.sink = sink;
        this.seqWidth = seqWidth;
    }

    /** Parses {@code b[from, to)}; stops for good at the first protocol error. */
    void feed(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            switch (state) {
                case HEAD0 -> {
                    int h = b[i++] & 0xff;
                    if ((h & 0x70) != 0) {
                        fail("reserved_bits");
                        return;
                    }
                    fin = (h & 0x80) != 0;
                    opcode = h & 0x0f;
                    if (!startFrame()) {
                        return;
                    }
                    state = HEAD1;
                }
                case HEAD1 -> {
                    int h = b[i++] & 0xff;
                    if ((h & 0x80) != 0) {
                        fail("masked_server_frame");
                        return;
                    }
                    int len = h & 0x7f;
                    if (len == 126) {
                        extRemaining = 2;
                        remaining = 0;
                        state = EXT_LEN;
                    } else if (len == 127) {
                        extRemaining = 8;
                        remaining = 0;
                        state = EXT_LEN;
                    } else {
                        remaining = len;
                        if (!headerDone()) {
                            return;
                        }
                    }
                }
                case EXT_LEN -> {
                    remaining = (remaining << 8) | (b[i++] & 0xff);
                    if (--extRemaining == 0 && !headerDone()) {
                        return;
                    }
                }
                case PAYLOAD -> {
                    int n = (int) Math.min(remaining, to - i);
                    if (opcode >= 8) {
                        System.arraycopy(b, i, control, controlLength, n);
                        controlLength += n;
                    } else {
                        digits(b, i, n);
                        messageLength += n;
                    }
                    i += n;
                    remaining -= n;
                    if (remaining == 0) {
                        frameDone();
                    }
                }
                default -> {
                    return;
                }
            }
        }
    }

    private boolean startFrame() {
        switch (opcode) {
            case 0 -> {
                if (!inMessage) {
                    fail("unexpected_continuation");
                    return false;
                }
            }
            case 1 -> {
                if (inMessage) {
                    fail("unfinished_message");
                    return false;
                }
                inMessage = true;
                messageLength = 0;
                seq = 0;
                seqDigits = 0;
                seqBad = false;
            }
            case 8, 9, 10 -> {
                if (!fin) {
                    fail("fragmented_control");
                    return false;
                }
            }
            case 2 -> {
                fail("unexpected_binary");
                return false;
            }
            default -> {
                fail("reserved_opcode");
                return false;
            }
        }
        return true;
    }

    private boolean headerDone() {
        if (opcode >= 8) {
            if (remaining > 125) {
                fail("control_too_long");
                return false;
            }
            if (control == null) {
                control = new byte[125];
            }
            controlLength = 0;
        } else if (remaining < 0) {
            fail("bad_length");
            return false;
        }
        state = PAYLOAD;
        if (remaining == 0) {
            frameDone();
        }
        return true;
    }

    private void digits(byte[] b, int at, int n) {
        int end = at + Math.min(n, seqWidth - seqDigits);
        for (int k = at; k < end; k++) {
            int d = b[k] - '0';
            if (d < 0 || d > 9) {
                seqBad = true;
            }
            seq = seq * 10 + d;
            seqDigits++;
        }
    }

    private void frameDone() {
        state = HEAD0;
        switch (opcode) {
            case 9 -> sink.onPing(control, controlLength);
            case 10 -> {
            }
            case 8 -> {
                int code = controlLength >= 2 ? ((control[0] & 0xff) << 8) | (control[1] & 0xff) : 1005;
                sink.onClose(code);
            }
            default -> {
                if (fin) {
                    inMessage = false;
                    boolean numbered = seqWidth > 0 && !seqBad && seqDigits == seqWidth;
                    sink.onText(messageLength, numbered ? seq : -1);
                }
            }
        }
    }

    /** Ignores every later byte (the connection is closing). */
    void stop() {
        state = FAILED;
    }

    private void fail(String kind) {
        state = FAILED;
        sink.onProtocolError(kind);
    }
}
