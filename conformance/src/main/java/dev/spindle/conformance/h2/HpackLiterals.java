// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The simplest HPACK encoder (RFC 7541): every field a literal without indexing and with a literal
 * name, no Huffman coding. It never touches the server's dynamic table, so a case's header block
 * means the same whatever came before it; the HPACK cases build their own bytes around it.
 */
public final class HpackLiterals {
    private HpackLiterals() {
    }

    /**
     * The header block of {@code fields}, each a literal field without indexing (RFC 7541 6.2.2).
     *
     * @param fields the fields in order
     * @return the block
     */
    public static byte[] encode(List<Header> fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Header h : fields) {
            out.write(0x00);
            string(out, h.name());
            string(out, h.value());
        }
        return out.toByteArray();
    }

    /**
     * An HPACK integer (RFC 7541 5.1) in a prefix of {@code prefixBits} bits, the first byte's
     * higher bits taken from {@code firstByte}.
     *
     * @param value the value, not negative
     * @param prefixBits the prefix length, 1 to 8
     * @param firstByte the bits above the prefix in the first byte
     * @return the encoded integer
     */
    public static byte[] integer(long value, int prefixBits, int firstByte) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        integer(out, value, prefixBits, firstByte);
        return out.toByteArray();
    }

    private static void integer(ByteArrayOutputStream out, long value, int prefixBits, int firstByte) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(firstByte | (int) value);
            return;
        }
        out.write(firstByte | max);
        long rest = value - max;
        while (rest >= 128) {
            out.write((int) (rest & 0x7f) | 0x80);
            rest >>>= 7;
        }
        out.write((int) rest);
    }

    private static void string(ByteArrayOutputStream out, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        integer(out, bytes.length, 7, 0);
        out.writeBytes(bytes);
    }
}
