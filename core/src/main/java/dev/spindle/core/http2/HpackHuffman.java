// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.util.Arrays;

/**
 * The Huffman code of HPACK string literals (RFC 7541 5.2 and Appendix B). The code is canonical,
 * so the table below holds only each symbol's length in bits; the codes follow from the lengths
 * (shorter codes first, equal lengths in symbol order), which the static initialiser checks by
 * requiring the code to be complete and prefix-free.
 *
 * <p>Decoding runs a table-driven state machine over 4-bit nibbles: a state is an internal node of
 * the code tree, i.e. the bits read since the last whole symbol. No code is shorter than 5 bits, so
 * a nibble completes at most one symbol, and a transition is one int: the next state, the symbol it
 * completed if any, and whether it ran into EOS. A string's end is valid only in a state whose bits
 * are all ones and at most 7 of them (RFC 7541 5.2: padding is the most significant bits of EOS and
 * shorter than an octet).
 */
final class HpackHuffman {
    static final int EOS = 256;

    /** RFC 7541 Appendix B: the code length of each symbol, 0 to 255, then EOS. */
    private static final byte[] LENGTHS = {
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
        28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
        7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
        24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
        21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
        19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
        26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        30,
    };

    private static final int MAX_LENGTH = 30;
    /** Each symbol's code, right-aligned in the int (the RFC's "as hex aligned to LSB"). */
    private static final int[] CODES = new int[EOS + 1];

    /** Internal nodes of the code tree: 257 leaves make 256 of them. */
    private static final int STATES = 256;
    private static final int NEXT_MASK = 0xFF;
    private static final int SYMBOL_SHIFT = 8;
    private static final int EMITS = 1 << 16;
    private static final int HITS_EOS = 1 << 17;
    /** Per state and nibble: the next state, the symbol completed (with EMITS), or HITS_EOS. */
    private static final int[] TRANSITIONS = new int[STATES * 16];
    /** Per state: 0 if a string may end there, else why not (one of the constants below). */
    private static final byte[] END = new byte[STATES];
    private static final byte END_NOT_ONES = 1;
    private static final byte END_TOO_LONG = 2;

    static {
        assignCanonicalCodes();
        buildDecoder();
        checkEverySymbolDecodes();
    }

    private HpackHuffman() {
    }

    /** The code of {@code symbol}, right-aligned, for tests. */
    static int code(int symbol) {
        return CODES[symbol];
    }

    /** The length in bits of {@code symbol}'s code. */
    static int codeLength(int symbol) {
        return LENGTHS[symbol];
    }

    /** Octets the Huffman coding of {@code src[offset, offset + length)} takes, padding included. */
    static int encodedLength(byte[] src, int offset, int length) {
        long bits = 0;
        for (int i = offset; i < offset + length; i++) {
            bits += LENGTHS[src[i] & 0xFF];
        }
        return (int) ((bits + 7) >>> 3);
    }

    /** Octets the Huffman coding of a Latin-1 string takes; characters above 0xFF count as their low byte. */
    static int encodedLength(CharSequence s) {
        long bits = 0;
        for (int i = 0; i < s.length(); i++) {
            bits += LENGTHS[s.charAt(i) & 0xFF];
        }
        return (int) ((bits + 7) >>> 3);
    }

    /** Appends the Huffman coding of {@code src[offset, offset + length)}, padded with the high bits of EOS. */
    static void encode(byte[] src, int offset, int length, WireBuffer out) {
        long bits = 0;
        int count = 0;
        for (int i = offset; i < offset + length; i++) {
            int symbol = src[i] & 0xFF;
            bits = (bits << LENGTHS[symbol]) | CODES[symbol];
            count += LENGTHS[symbol];
            while (count >= 8) {
                count -= 8;
                out.put((int) (bits >>> count));
            }
        }
        if (count > 0) {
            out.put((int) ((bits << (8 - count)) | (0xFF >>> count)));
        }
    }

    /** The most octets {@code encodedLength} Huffman-coded octets can decode to (the shortest code is 5 bits). */
    static int maxDecodedLength(int encodedLength) {
        return (int) (((long) encodedLength * 8) / 5);
    }

    /**
     * Decodes {@code src[offset, offset + length)} into {@code dst} from {@code dstOffset}, which
     * must have room for {@link #maxDecodedLength} octets.
     *
     * @return the number of octets decoded
     * @throws HpackException if the string holds EOS, or its padding is longer than 7 bits or not all ones
     */
    static int decode(byte[] src, int offset, int length, byte[] dst, int dstOffset) throws HpackException {
        int state = 0;
        int out = dstOffset;
        for (int i = offset; i < offset + length; i++) {
            int b = src[i] & 0xFF;
            int t = TRANSITIONS[(state << 4) | (b >>> 4)];
            if ((t & (EMITS | HITS_EOS)) != 0) {
                if ((t & HITS_EOS) != 0) {
                    throw new HpackException("a Huffman-coded string holds EOS");
                }
                dst[out++] = (byte) (t >>> SYMBOL_SHIFT);
            }
            t = TRANSITIONS[((t & NEXT_MASK) << 4) | (b & 0x0F)];
            if ((t & (EMITS | HITS_EOS)) != 0) {
                if ((t & HITS_EOS) != 0) {
                    throw new HpackException("a Huffman-coded string holds EOS");
                }
                dst[out++] = (byte) (t >>> SYMBOL_SHIFT);
            }
            state = t & NEXT_MASK;
        }
        switch (END[state]) {
            case END_NOT_ONES -> throw new HpackException("Huffman padding that is not the most significant bits of EOS");
            case END_TOO_LONG -> throw new HpackException("Huffman padding longer than 7 bits");
            default -> {
                return out - dstOffset;
            }
        }
    }

    /** RFC 7541 Appendix B is canonical: walking lengths in order, each code is the previous plus one, shifted. */
    private static void assignCanonicalCodes() {
        long kraft = 0;
        int code = 0;
        int previousLength = 0;
        for (int length = 1; length <= MAX_LENGTH; length++) {
            for (int symbol = 0; symbol <= EOS; symbol++) {
                if (LENGTHS[symbol] != length) {
                    continue;
                }
                if (previousLength != 0) {
                    code = (code + 1) << (length - previousLength);
                }
                previousLength = length;
                CODES[symbol] = code;
                kraft += 1L << (MAX_LENGTH - length);
            }
        }
        if (kraft != 1L << MAX_LENGTH) {
            throw new IllegalStateException("the Huffman code lengths do not make a complete prefix code");
        }
        if (CODES[EOS] != (1 << MAX_LENGTH) - 1) {
            throw new IllegalStateException("EOS is not thirty ones");
        }
    }

    private static void buildDecoder() {
        // children[node * 2 + bit]: >= 0 an internal node, < 0 the leaf -(symbol + 1), NONE not yet set
        final int none = Integer.MIN_VALUE;
        int[] children = new int[STATES * 2];
        Arrays.fill(children, none);
        int[] depth = new int[STATES];
        boolean[] allOnes = new boolean[STATES];
        allOnes[0] = true;
        int nodes = 1;
        for (int symbol = 0; symbol <= EOS; symbol++) {
            int node = 0;
            for (int bit = LENGTHS[symbol] - 1; bit >= 0; bit--) {
                int slot = node * 2 + ((CODES[symbol] >>> bit) & 1);
                if (bit == 0) {
                    if (children[slot] != none) {
                        throw new IllegalStateException("Huffman code of " + symbol + " is not prefix-free");
                    }
                    children[slot] = -(symbol + 1);
                } else {
                    if (children[slot] == none) {
                        if (nodes == STATES) {
                            throw new IllegalStateException("Huffman code tree has too many nodes");
                        }
                        children[slot] = nodes;
                        depth[nodes] = depth[node] + 1;
                        allOnes[nodes] = allOnes[node] && (slot & 1) == 1;
                        nodes++;
                    } else if (children[slot] < 0) {
                        throw new IllegalStateException("Huffman code of " + symbol + " is not prefix-free");
                    }
                    node = children[slot];
                }
            }
        }
        for (int child : children) {
            if (child == none) {
                throw new IllegalStateException("Huffman code tree is not full");
            }
        }
        for (int state = 0; state < STATES; state++) {
            END[state] = !allOnes[state] ? END_NOT_ONES : depth[state] > 7 ? END_TOO_LONG : 0;
            for (int nibble = 0; nibble < 16; nibble++) {
                int node = state;
                int transition = 0;
                for (int bit = 3; bit >= 0; bit--) {
                    int child = children[node * 2 + ((nibble >>> bit) & 1)];
                    if (child >= 0) {
                        node = child;
                        continue;
                    }
                    int symbol = -child - 1;
                    if ((transition & (EMITS | HITS_EOS)) != 0) {
                        throw new IllegalStateException("a nibble completes two Huffman symbols");
                    }
                    if (symbol == EOS) {
                        transition |= HITS_EOS;
                    } else {
                        transition |= EMITS | (symbol << SYMBOL_SHIFT);
                    }
                    node = 0;
                }
                TRANSITIONS[state * 16 + nibble] = transition | node;
            }
        }
    }

    /** Each symbol's code, padded with ones, decodes to that symbol alone; EOS is refused. */
    private static void checkEverySymbolDecodes() {
        byte[] one = new byte[1];
        byte[] coded = new byte[4];
        byte[] decoded = new byte[8];
        WireBuffer buffer = new WireBuffer(8);
        for (int symbol = 0; symbol < EOS; symbol++) {
            one[0] = (byte) symbol;
            encode(one, 0, 1, buffer);
            int n = buffer.pending();
            System.arraycopy(buffer.toArray(), 0, coded, 0, n);
            buffer.written(n);
            try {
                if (decode(coded, 0, n, decoded, 0) != 1 || decoded[0] != (byte) symbol) {
                    throw new IllegalStateException("Huffman symbol " + symbol + " does not decode to itself");
                }
            } catch (HpackException e) {
                throw new IllegalStateException("Huffman symbol " + symbol + " does not decode: " + e.getMessage(), e);
            }
        }
    }
}
