// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import dev.spindle.core.exchange.BodyException;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * A request body's content coding undone as it arrives, one piece of input at a time, never more
 * output than the caller has room for, so a body that inflates a thousandfold (a "zip bomb")
 * costs no more memory than an ordinary one. Past {@code limit} inflated bytes it fails with 413;
 * input that is not valid in its coding (a bad header, a corrupt stream, a wrong checksum, a
 * truncated end, bytes after it) fails with 400. gzip may have several members (RFC 1952 2.2);
 * {@code deflate} is the zlib format, or a raw deflate stream as some clients send it.
 *
 * <p>Like {@link Inflater}, it keeps a reference to the input it is given until it needs more.
 * Used by one thread at a time; {@link #end()} releases the inflater's native memory.
 */
final class Inflation {
    static final int GZIP = 1;
    static final int DEFLATE = 2;

    private static final int FTEXT_MASK = 0xE0;
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;

    private enum State { HEADER, EXTRA_LENGTH, EXTRA, NAME, COMMENT, HEADER_CRC, DATA, TRAILER, MEMBER_END, DONE, FAILED }

    private final int coding;
    private final long limit;
    private final CRC32 crc = new CRC32();
    private Inflater inflater;
    private State state = State.HEADER;
    /** Header or trailer bytes gathered so far, and how many are wanted. */
    private final byte[] scratch = new byte[10];
    private int gathered;
    private int flags;
    private int extraLeft;
    private byte[] input;
    private int inputPos;
    private int inputEnd;
    private long inflated;
    private long memberInflated;
    private boolean any;

    Inflation(int coding, long limit) {
        this.coding = coding;
        this.limit = limit;
    }

    /** Inflated bytes so far. */
    long inflated() {
        return inflated;
    }

    /** The next piece of the coded body, once {@link #inflate} returned 0 for the last; referenced until then. */
    void setInput(byte[] bytes, int offset, int length) {
        input = bytes;
        inputPos = offset;
        inputEnd = offset + length;
        if (length > 0) {
            any = true;
        }
    }

    /**
     * Inflates into {@code out[off, off + len)}.
     *
     * @return bytes produced; 0 when more input is needed, or the coding ended ({@link #finished()})
     * @throws BodyException 413 past the limit, 400 for input not valid in the coding
     */
    int inflate(byte[] out, int off, int len) throws BodyException {
        try {
            while (true) {
                switch (state) {
                    case DATA -> {
                        // the inflater may owe output for input it took already: it is asked first
                        int n = inflater.inflate(out, off, len);
                        if (n > 0) {
                            produced(out, off, n);
                            return n;
                        }
                        if (inflater.finished()) {
                            // what the inflater did not use belongs to the trailer, or to what follows
                            inputPos = inputEnd - inflater.getRemaining();
                            state = coding == GZIP ? State.TRAILER : State.DONE;
                            gathered = 0;
                        } else if (inflater.needsDictionary()) {
                            throw corrupt("a preset dictionary is needed");
                        } else if (inflater.needsInput() && inputPos < inputEnd) {
                            inflater.setInput(input, inputPos, inputEnd - inputPos);
                            inputPos = inputEnd;
                        } else {
                            return 0;
                        }
                    }
                    case DONE -> {
                        if (inputPos < inputEnd) {
                            throw corrupt("bytes after the end of the coded body");
                        }
                        return 0;
                    }
                    case MEMBER_END -> {
                        if (inputPos == inputEnd) {
                            return 0;
                        }
                        // another gzip member follows
                        inflater.reset();
                        crc.reset();
                        memberInflated = 0;
                        state = State.HEADER;
                        gathered = 0;
                    }
                    case FAILED -> throw corrupt("the body failed already");
                    default -> {
                        if (!header()) {
                            return 0;
                        }
                    }
                }
            }
        } catch (DataFormatException e) {
            state = State.FAILED;
            throw corrupt(e.getMessage() == null ? "corrupt" : e.getMessage());
        } catch (BodyException e) {
            state = State.FAILED;
            throw e;
        }
    }

    private void produced(byte[] out, int off, int n) throws BodyException {
        inflated += n;
        memberInflated += n;
        if (coding == GZIP) {
            crc.update(out, off, n);
        }
        if (inflated > limit) {
            throw new BodyException(413, "the request body inflates to more than " + limit + " bytes");
        }
    }

    /** Works through header (or trailer) bytes; false when more input is needed. */
    private boolean header() throws BodyException {
        while (inputPos < inputEnd) {
            byte b = input[inputPos];
            switch (state) {
                case HEADER -> {
                    if (coding == DEFLATE) {
                        return startDeflate();
                    }
                    scratch[gathered++] = b;
                    inputPos++;
                    if (gathered == 10) {
                        if ((scratch[0] & 0xFF) != 0x1f || (scratch[1] & 0xFF) != 0x8b || scratch[2] != 8) {
                            throw corrupt("not a gzip member");
                        }
                        flags = scratch[3] & 0xFF;
                        if ((flags & FTEXT_MASK) != 0) {
                            throw corrupt("reserved gzip flags");
                        }
                        gathered = 0;
                        state = (flags & FEXTRA) != 0 ? State.EXTRA_LENGTH : next(State.NAME);
                    }
                }
                case EXTRA_LENGTH -> {
                    scratch[gathered++] = b;
                    inputPos++;
                    if (gathered == 2) {
                        extraLeft = (scratch[0] & 0xFF) | (scratch[1] & 0xFF) << 8;
                        gathered = 0;
                        state = extraLeft > 0 ? State.EXTRA : next(State.NAME);
                    }
                }
                case EXTRA -> {
                    int skip = Math.min(extraLeft, inputEnd - inputPos);
                    inputPos += skip;
                    extraLeft -= skip;
                    if (extraLeft == 0) {
                        state = next(State.NAME);
                    }
                }
                case NAME, COMMENT -> {
                    inputPos++;
                    if (b == 0) {
                        state = next(state == State.NAME ? State.COMMENT : State.HEADER_CRC);
                    }
                }
                case HEADER_CRC -> {
                    inputPos++;
                    if (++gathered == 2) {
                        gathered = 0;
                        startInflater(true);
                    }
                }
                case TRAILER -> {
                    scratch[gathered++] = b;
                    inputPos++;
                    if (gathered == 8) {
                        checkTrailer();
                        state = State.MEMBER_END;
                        return true;
                    }
                }
                default -> throw new IllegalStateException(state.name());
            }
            if (state == State.DATA) {
                return true;
            }
        }
        return false;
    }

    /** The next header part the flags ask for, from {@code from} on. */
    private State next(State from) {
        if (from == State.NAME && (flags & FNAME) != 0) {
            return State.NAME;
        }
        if ((from == State.NAME || from == State.COMMENT) && (flags & FCOMMENT) != 0) {
            return State.COMMENT;
        }
        if ((flags & FHCRC) != 0) {
            return State.HEADER_CRC;
        }
        startInflater(true);
        return State.DATA;
    }

    /** RFC 1950 2.2: a zlib header is CM 8 with FCHECK making it a multiple of 31; anything else is taken as raw deflate. */
    private boolean startDeflate() {
        if (inputEnd - inputPos < 2 && gathered == 0) {
            scratch[0] = input[inputPos++];
            gathered = 1;
            return false;
        }
        int b0 = gathered == 1 ? scratch[0] & 0xFF : input[inputPos] & 0xFF;
        int b1 = input[gathered == 1 ? inputPos : inputPos + 1] & 0xFF;
        boolean zlib = (b0 & 0x0F) == 8 && (b0 << 8 | b1) % 31 == 0;
        startInflater(!zlib);
        if (gathered == 1) {
            // the first byte was taken already: the inflater gets it on its own
            inflater.setInput(scratch, 0, 1);
            gathered = 0;
        }
        return true;
    }

    private void startInflater(boolean raw) {
        if (inflater == null) {
            inflater = new Inflater(raw);
        }
        state = State.DATA;
    }

    private void checkTrailer() throws BodyException {
        int crc32 = 0;
        int size = 0;
        for (int i = 0; i < 4; i++) {
            crc32 |= (scratch[i] & 0xFF) << 8 * i;
            size |= (scratch[4 + i] & 0xFF) << 8 * i;
        }
        if (crc32 != (int) crc.getValue()) {
            throw corrupt("the gzip CRC does not match");
        }
        if (size != (int) memberInflated) {
            throw corrupt("the gzip length does not match");
        }
    }

    /**
     * The coded body ended (every byte given): it must have ended in its coding.
     *
     * @throws BodyException 400 for a truncated body
     */
    void finish() throws BodyException {
        if (!any) {
            // an empty body in any coding is an empty body
            state = State.DONE;
            return;
        }
        if (state != State.MEMBER_END && state != State.DONE || inputPos < inputEnd && state == State.DONE) {
            state = State.FAILED;
            throw corrupt("the coded body is cut short");
        }
    }

    /** Whether the coding ended and every input byte was used. */
    boolean finished() {
        return (state == State.MEMBER_END || state == State.DONE) && inputPos == inputEnd;
    }

    /** Releases the inflater. */
    void end() {
        if (inflater != null) {
            inflater.end();
        }
    }

    private static BodyException corrupt(String why) {
        return new BodyException(400, "the request body is not valid in its content coding: " + why);
    }
}
