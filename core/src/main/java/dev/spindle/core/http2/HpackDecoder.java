package dev.spindle.core.http2;

import java.nio.charset.StandardCharsets;

/**
 * Decodes HPACK header blocks (RFC 7541) into header fields, keeping the connection's dynamic
 * table in step with the peer's encoder. The header list's size (RFC 9113 6.5.2: name and value
 * octets plus 32 per field) is counted while decoding: once a block passes the limit, no further
 * field is created or handed on (a literal that is not indexed is skipped over), but the block is
 * still decoded to its end so that the table stays in step; {@link #decode} then answers false.
 * A table entry is never larger than the table's maximum, so memory stays bounded either way.
 * Huffman-coded strings are not decoded yet: such a block fails with an {@link HpackException}.
 */
public final class HpackDecoder {
    /** Receives the decoded fields of a block, in order. */
    @FunctionalInterface
    public interface Sink {
        /**
         * One header field.
         *
         * @param name the name, as sent (lower case is the sender's duty in HTTP/2)
         * @param value the value
         */
        void header(String name, String value);
    }

    private final HpackTable table;
    /** The largest dynamic table the peer may ask for: our SETTINGS_HEADER_TABLE_SIZE. */
    private final long maxTableSize;
    private final long maxHeaderListSize;
    private byte[] block;
    private int pos;
    private int end;

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
        while (pos < end) {
            int b = block[pos] & 0xFF;
            if ((b & 0x80) != 0) {
                int index = index(integer(7));
                fieldSeen = true;
                String name = table.name(index);
                String value = table.value(index);
                listSize += fieldSize(name.length(), value.length());
                overLimit |= listSize > maxHeaderListSize;
                if (!overLimit) {
                    sink.header(name, value);
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
                String name;
                int nameLength;
                if (nameIndex == 0) {
                    nameLength = stringLength();
                    name = overLimit && !indexing ? null : text(nameLength);
                    if (name == null) {
                        pos += nameLength;
                    }
                } else {
                    name = table.name(index(nameIndex));
                    nameLength = name.length();
                }
                int valueLength = stringLength();
                listSize += fieldSize(nameLength, valueLength);
                overLimit |= listSize > maxHeaderListSize;
                if (overLimit && !indexing) {
                    pos += valueLength;
                    continue;
                }
                String value = text(valueLength);
                if (indexing) {
                    table.add(name, value);
                }
                if (!overLimit) {
                    sink.header(name, value);
                }
            }
        }
        block = null;
        return !overLimit;
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

    /** RFC 7541 5.2: a string's length, checked against what is left of the block. */
    private int stringLength() throws HpackException {
        if (pos >= end) {
            throw new HpackException("a string is missing at the end of the block");
        }
        if ((block[pos] & 0x80) != 0) {
            throw new HpackException("Huffman-coded strings are not decoded yet");
        }
        long length = integer(7);
        if (length > end - pos) {
            throw new HpackException("a string of " + length + " octets runs past the end of the block");
        }
        return (int) length;
    }

    private String text(int length) {
        String s = new String(block, pos, length, StandardCharsets.ISO_8859_1);
        pos += length;
        return s;
    }
}
