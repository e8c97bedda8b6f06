// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.util.Arrays;

/**
 * Decodes HPACK header blocks (RFC 7541) into header fields, keeping the connection's dynamic
 * table in step with the peer's encoder. Fields are handed on as octets, never as Strings, so a
 * block costs no allocation beyond the entries it adds to the table (and, rarely, growing the
 * scratch array Huffman-coded strings decode into). The header list's size (RFC 9113 6.5.2: name
 * and value octets plus 32 per field) is counted while decoding: once a block passes the limit, no
 * further field is handed on, but the block is still decoded to its end so that the table stays
 * in step; {@link #decode} then answers false. A table entry is never larger than the table's
 * maximum, so memory stays bounded either way.
 */
public final class HpackDecoder {
    /** Receives the decoded fields of a block, in order. */
    @FunctionalInterface
    public interface Sink {
        /**
         * One header field. The arrays are only valid during the call and must not be changed:
         * they may be the decoder's scratch, a table entry's own arrays, or the block itself.
         *
         * @param name the array holding the name, as sent (lower case is the sender's duty in HTTP/2)
         * @param nameOffset where the name starts
         * @param nameLength its length
         * @param value the array holding the value
         * @param valueOffset where the value starts
         * @param valueLength its length
         */
        void header(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength);
    }

    private final HpackTable table;
    /** The largest dynamic table the peer may ask for: our SETTINGS_HEADER_TABLE_SIZE. */
    private final long maxTableSize;
    private final long maxHeaderListSize;
    private byte[] block;
    private int pos;
    private int end;
    /** Where Huffman-coded strings are decoded: a field's name first, then its value. */
    private byte[] scratch = new byte[64];
    private int scratchUsed;
    /** The string {@link #string} read last: its array, offset and length (fields, so reading one allocates nothing). */
    private byte[] stringArray;
    private int stringOffset;
    private int stringLength;

    /**
     * A decoder for one connection.
     *
     * @param maxTableSize the SETTINGS_HEADER_TABLE_SIZE this side advertised (4,096 by default)
     * @param maxHeaderListSize the largest header list to hand on (SETTINGS_MAX_HEADER_LIST_SIZE)
     */
    public HpackDecoder(long maxTableSize, long maxHeaderListSize) {
        this.table = new HpackTable(maxTableSize);
        this.maxTableSize = maxTableSize;
        this.maxHeaderListSize = maxHeaderListSize;
    }

    /**
     * Decodes one complete header block (the fragments of a HEADERS frame and its CONTINUATION
     * frames, joined).
     *
     * @param src the block's bytes
     * @param offset where it starts
     * @param length its length
     * @param sink receives each field, in order, until the header list passes its limit
     * @return true if every field was handed on; false if the list passed the limit (the stream is
     *         to be refused; the connection goes on)
     * @throws HpackException if the block is malformed: a connection error (COMPRESSION_ERROR)
     */
    public boolean decode(byte[] src, int offset, int length, Sink sink) throws HpackException {
        block = src;
        pos = offset;
        end = offset + length;
        long listSize = 0;
        boolean fieldSeen = false;
        boolean overLimit = false;
        try {
            while (pos < end) {
                int b = block[pos] & 0xFF;
                if ((b & 0x80) != 0) {
                    int index = index(integer(7));
                    fieldSeen = true;
                    byte[] name = table.name(index);
                    byte[] value = table.value(index);
                    listSize += fieldSize(name.length, value.length);
                    overLimit |= listSize > maxHeaderListSize;
                    if (!overLimit) {
                        sink.header(name, 0, name.length, value, 0, value.length);
                    }
                } else if ((b & 0xE0) == 0x20) {
                    if (fieldSeen) {
                        throw new HpackException("a dynamic table size update after a header field");
                    }
                    long max = integer(5);
                    if (max > maxTableSize) {
                        throw new HpackException("a dynamic table size update to " + max + ", above the " + maxTableSize + " allowed");
                    }
                    table.resize(max);
                } else {
                    boolean indexing = (b & 0x40) != 0;
                    long nameIndex = integer(indexing ? 6 : 4);
                    fieldSeen = true;
                    scratchUsed = 0;
                    byte[] name;
                    int nameOffset;
                    int nameLength;
                    if (nameIndex == 0) {
                        string();
                        name = stringArray;
                        nameOffset = stringOffset;
                        nameLength = stringLength;
                    } else {
                        name = table.name(index(nameIndex));
                        nameOffset = 0;
                        nameLength = name.length;
                    }
                    string();
                    byte[] value = stringArray;
                    int valueOffset = stringOffset;
                    int valueLength = stringLength;
                    listSize += fieldSize(nameLength, valueLength);
                    overLimit |= listSize > maxHeaderListSize;
                    if (indexing) {
                        // a name taken from the table is shared: entries never change
                        if (nameIndex == 0) {
                            name = Arrays.copyOfRange(name, nameOffset, nameOffset + nameLength);
                            nameOffset = 0;
                        }
                        value = Arrays.copyOfRange(value, valueOffset, valueOffset + valueLength);
                        valueOffset = 0;
                        table.add(name, value);
                    }
                    if (!overLimit) {
                        sink.header(name, nameOffset, nameLength, value, valueOffset, valueLength);
                    }
                }
            }
        } finally {
            block = null;
            stringArray = null;
        }
        return !overLimit;
    }

    /** The dynamic table, for tests. */
    HpackTable table() {
        return table;
    }

    /** Size of the dynamic table as RFC 7541 4.1 counts it, for tests and diagnostics. */
    long tableSize() {
        return table.size();
    }

    /** Entries in the dynamic table. */
    int tableLength() {
        return table.dynamicLength();
    }

    private static long fieldSize(int nameLength, int valueLength) {
        return (long) nameLength + valueLength + HpackTable.ENTRY_OVERHEAD;
    }

    private int index(long index) throws HpackException {
        if (!table.has(index)) {
            throw new HpackException("index " + index + " is not in the table (" + HpackTable.STATIC_LENGTH
                    + " static and " + table.dynamicLength() + " dynamic entries)");
        }
        return (int) index;
    }

    /** RFC 7541 5.1: an integer with an N-bit prefix, starting at {@link #pos}. */
    private long integer(int prefixBits) throws HpackException {
        int max = (1 << prefixBits) - 1;
        long value = block[pos++] & max;
        if (value < max) {
            return value;
        }
        int shift = 0;
        while (true) {
            if (pos >= end) {
                throw new HpackException("an integer runs past the end of the block");
            }
            int b = block[pos++] & 0xFF;
            value += (long) (b & 0x7F) << shift;
            if (value > Integer.MAX_VALUE) {
                throw new HpackException("an integer above 2^31-1");
            }
            if ((b & 0x80) == 0) {
                return value;
            }
            shift += 7;
        }
    }

    /**
     * RFC 7541 5.2: a string literal at {@link #pos}, left in {@link #stringArray} and its fellows:
     * the block itself if it is plain, else the scratch it was Huffman-decoded into.
     */
    private void string() throws HpackException {
        if (pos >= end) {
            throw new HpackException("a string is missing at the end of the block");
        }
        boolean huffman = (block[pos] & 0x80) != 0;
        long length = integer(7);
        if (length > end - pos) {
            throw new HpackException("a string of " + length + " octets runs past the end of the block");
        }
        int n = (int) length;
        if (!huffman) {
            stringArray = block;
            stringOffset = pos;
            stringLength = n;
        } else {
            int room = scratchUsed + HpackHuffman.maxDecodedLength(n);
            if (room > scratch.length) {
                // a name decoded earlier stays valid in the old array, which its caller still holds
                scratch = Arrays.copyOf(scratch, Math.max(room, scratch.length * 2));
            }
            stringArray = scratch;
            stringOffset = scratchUsed;
            stringLength = HpackHuffman.decode(block, pos, n, scratch, scratchUsed);
            scratchUsed += stringLength;
        }
        pos += n;
    }
}
