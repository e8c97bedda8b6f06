// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Encodes the server's response header blocks (RFC 7541), keeping its own dynamic table, which the
 * peer's decoder mirrors. A field already in the static or dynamic table is sent as one index;
 * otherwise as a literal, with the name as an index when there is one, and added to the table
 * unless its value changes on every response ({@code content-length}, {@code content-range}), it
 * would take more than half the table, or the caller marked it sensitive (never indexed, RFC 7541
 * 7.1.3). A string is Huffman-coded when that is shorter.
 *
 * <p>Table size: this encoder uses at most its own maximum and at most the peer's
 * SETTINGS_HEADER_TABLE_SIZE. Using less than the peer's decoder allows needs no signal (the
 * decoder just keeps older entries the encoder no longer refers to), so none is sent at first;
 * once the peer's setting changes, the next block begins with the size update(s) RFC 7541 4.2
 * asks for.
 *
 * <p>The byte-array methods allocate nothing but the copies a new table entry keeps.
 */
final class HpackEncoder {
    /** When a string literal is Huffman-coded. */
    enum Huffman { NEVER, ALWAYS, WHEN_SHORTER }

    /** HTTP/2's initial SETTINGS_HEADER_TABLE_SIZE: the size of the peer decoder's table until we say otherwise. */
    private static final long INITIAL_PEER_TABLE_SIZE = 4096;
    private static final int STATUS_INDEX = 8;
    private static final int CONTENT_LENGTH_INDEX = 28;
    private static final int CONTENT_RANGE_INDEX = 30;
    private static final byte[] STATUS = {':', 's', 't', 'a', 't', 'u', 's'};

    private static final int INCREMENTAL = 0;
    private static final int WITHOUT_INDEXING = 1;
    private static final int NEVER_INDEXED = 2;

    private final HpackTable table;
    private final long ownMaxTableSize;
    private final boolean indexEverything;
    private final Huffman huffman;
    /** The table size the peer's decoder uses, as far as our blocks have told it. */
    private long decoderTableSize = INITIAL_PEER_TABLE_SIZE;
    /** The smallest table size since the last block began, which the decoder must see first (RFC 7541 4.2). */
    private long lowestSinceLastBlock;
    private boolean sizeChanged;
    private final byte[] statusDigits = new byte[3];
    private byte[] nameScratch = new byte[32];
    private byte[] valueScratch = new byte[64];

    /**
     * An encoder for one connection.
     *
     * @param maxTableSize the largest dynamic table this encoder will use
     */
    /** Fields found again by identity ({@link #headerConstant}): name, value, the entry's insertion number. */
    private static final int MEMO = 4;
    private final byte[][] memoNames = new byte[MEMO][];
    private final byte[][] memoValues = new byte[MEMO][];
    private final long[] memoInsertions = new long[MEMO];
    private int memoNext;

    HpackEncoder(int maxTableSize) {
        this(maxTableSize, false, Huffman.WHEN_SHORTER);
    }

    /**
     * An encoder with a chosen policy, so tests can reproduce the choices of RFC 7541's examples.
     *
     * @param indexEverything add every literal field to the table, whatever its name or size
     * @param huffman when to Huffman-code strings
     */
    HpackEncoder(int maxTableSize, boolean indexEverything, Huffman huffman) {
        if (maxTableSize < 0) {
            throw new IllegalArgumentException("a table size of " + maxTableSize);
        }
        this.ownMaxTableSize = maxTableSize;
        this.indexEverything = indexEverything;
        this.huffman = huffman;
        long initial = Math.min(maxTableSize, INITIAL_PEER_TABLE_SIZE);
        this.table = new HpackTable(initial);
        this.lowestSinceLastBlock = initial;
    }

    /**
     * The peer's SETTINGS_HEADER_TABLE_SIZE changed (once its SETTINGS frame is acknowledged): the
     * table shrinks at once if it must, and the next block announces the new size.
     *
     * @param value the peer's new setting
     */
    void peerMaxTableSize(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("a table size of " + value);
        }
        long size = Math.min(ownMaxTableSize, value);
        table.resize(size);
        lowestSinceLastBlock = Math.min(lowestSinceLastBlock, size);
        sizeChanged = true;
    }

    /**
     * Starts a header block: emits the dynamic table size update(s) owed since the last one, the
     * smallest size first if the size went down and up again, so the decoder evicts what we evicted.
     *
     * @param out where the block is being written
     */
    void beginBlock(WireBuffer out) {
        if (!sizeChanged) {
            return;
        }
        long size = table.maxSize();
        if (lowestSinceLastBlock < decoderTableSize && lowestSinceLastBlock < size) {
            integer(out, 0x20, 5, lowestSinceLastBlock);
        }
        if (lowestSinceLastBlock < decoderTableSize || size != decoderTableSize) {
            integer(out, 0x20, 5, size);
        }
        decoderTableSize = size;
        lowestSinceLastBlock = size;
        sizeChanged = false;
    }

    /**
     * The {@code :status} pseudo-header: one static index for the common codes, else a literal
     * with the static name, indexed so that a repeated status is one octet next time.
     *
     * @param code the status code, 100 to 999
     * @param out where the block is being written
     */
    void status(int code, WireBuffer out) {
        int index = switch (code) {
            case 200 -> 8;
            case 204 -> 9;
            case 206 -> 10;
            case 304 -> 11;
            case 400 -> 12;
            case 404 -> 13;
            case 500 -> 14;
            default -> 0;
        };
        if (index != 0) {
            integer(out, 0x80, 7, index);
            return;
        }
        if (code < 100 || code > 999) {
            throw new IllegalArgumentException("status " + code + " is not three digits");
        }
        statusDigits[0] = (byte) ('0' + code / 100);
        statusDigits[1] = (byte) ('0' + code / 10 % 10);
        statusDigits[2] = (byte) ('0' + code % 10);
        field(STATUS, 0, STATUS.length, statusDigits, 0, 3, INCREMENTAL, out);
    }

    /**
     * A header field.
     *
     * @param lowerCaseName the name, already in lower case (RFC 9113 8.2.1)
     * @param value the value's octets
     * @param out where the block is being written
     */
    void header(byte[] lowerCaseName, byte[] value, WireBuffer out) {
        header(lowerCaseName, 0, lowerCaseName.length, value, 0, value.length, out);
    }

    /**
     * A field whose two arrays never change (constants, or a value replaced rather than modified,
     * like the current date's): once it is in the dynamic table, it is found again by the arrays'
     * identity, without comparing bytes. The connection's {@code server}, {@code date} and
     * {@code content-type} take this path: a table full of last minutes' dates is not scanned.
     */
    void headerConstant(byte[] lowerCaseName, byte[] value, WireBuffer out) {
        for (int i = 0; i < MEMO; i++) {
            if (memoNames[i] == lowerCaseName && memoValues[i] == value) {
                int index = table.indexOfInsertion(memoInsertions[i]);
                if (index != 0) {
                    integer(out, 0x80, 7, index);
                    return;
                }
                break;
            }
        }
        long insertion = field(lowerCaseName, 0, lowerCaseName.length, value, 0, value.length, INCREMENTAL, out);
        if (insertion >= 0) {
            int slot = memoSlot(lowerCaseName);
            memoNames[slot] = lowerCaseName;
            memoValues[slot] = value;
            memoInsertions[slot] = insertion;
        }
    }

    /** The memo slot of a name: its own if it has one (a new date replaces the last), else the next in turn. */
    private int memoSlot(byte[] name) {
        for (int i = 0; i < MEMO; i++) {
            if (memoNames[i] == name) {
                return i;
            }
        }
        int slot = memoNext;
        memoNext = (memoNext + 1) % MEMO;
        return slot;
    }

    /**
     * {@code content-length}: a literal without indexing on the static name (index 28), as every
     * response's length differs; no table is searched.
     */
    void contentLength(byte[] digits, WireBuffer out) {
        integer(out, 0x00, 4, CONTENT_LENGTH_INDEX);
        string(digits, 0, digits.length, out);
    }

    /** A header field whose name and value are parts of larger arrays; the arrays may be reused afterwards. */
    void header(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength, WireBuffer out) {
        field(name, nameOffset, nameLength, value, valueOffset, valueLength, INCREMENTAL, out);
    }

    /**
     * A header field from Strings: lower-case name, Latin-1 characters (copied into scratch arrays,
     * so this allocates no more than the byte-array form).
     */
    void header(String lowerCaseName, String value, WireBuffer out) {
        int nameLength = latin1(lowerCaseName, true);
        int valueLength = latin1(value, false);
        field(nameScratch, 0, nameLength, valueScratch, 0, valueLength, INCREMENTAL, out);
    }

    /**
     * A sensitive header field (set-cookie, authorization and the like): a literal never indexed,
     * which intermediaries must pass on the same way (RFC 7541 7.1.3), so that it is never in a
     * table where guesses could be confirmed by the size of what is sent.
     */
    void headerNeverIndexed(byte[] lowerCaseName, byte[] value, WireBuffer out) {
        field(lowerCaseName, 0, lowerCaseName.length, value, 0, value.length, NEVER_INDEXED, out);
    }

    /** {@link #headerNeverIndexed(byte[], byte[], WireBuffer)} from Strings. */
    void headerNeverIndexed(String lowerCaseName, String value, WireBuffer out) {
        int nameLength = latin1(lowerCaseName, true);
        int valueLength = latin1(value, false);
        field(nameScratch, 0, nameLength, valueScratch, 0, valueLength, NEVER_INDEXED, out);
    }

    /** Size of the dynamic table as RFC 7541 4.1 counts it, for tests. */
    long tableSize() {
        return table.size();
    }

    /** The dynamic table, for tests. */
    HpackTable table() {
        return table;
    }

    /** @return the insertion number of the dynamic entry the field was sent as or added to, else -1 */
    private long field(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength,
            int representation, WireBuffer out) {
        int nameHash = lowerCaseNameHash(name, nameOffset, nameLength);
        int valueHash = HpackTable.hash(value, valueOffset, valueLength);
        int found = table.find(name, nameOffset, nameLength, nameHash, value, valueOffset, valueLength, valueHash);
        if (found > 0 && representation != NEVER_INDEXED) {
            integer(out, 0x80, 7, found);
            return found > HpackTable.STATIC_LENGTH ? table.insertionOf(found) : -1;
        }
        int nameIndex = Math.abs(found);
        boolean indexing = representation == INCREMENTAL && (indexEverything || worthIndexing(nameIndex, nameLength, valueLength));
        if (indexing) {
            integer(out, 0x40, 6, nameIndex);
        } else {
            integer(out, representation == NEVER_INDEXED ? 0x10 : 0x00, 4, nameIndex);
        }
        if (nameIndex == 0) {
            string(name, nameOffset, nameLength, out);
        }
        string(value, valueOffset, valueLength, out);
        if (indexing) {
            // an existing entry's name is shared rather than copied: entries never change
            byte[] storedName = nameIndex != 0 ? table.name(nameIndex) : Arrays.copyOfRange(name, nameOffset, nameOffset + nameLength);
            long before = table.inserted();
            table.add(storedName, Arrays.copyOfRange(value, valueOffset, valueOffset + valueLength));
            return table.inserted() > before ? before : -1;
        }
        return -1;
    }

    /**
     * Whether a field earns a table entry: not one whose value changes on every response, and not
     * one so large that it would evict half the table.
     */
    private boolean worthIndexing(int nameIndex, int nameLength, int valueLength) {
        if (nameIndex == CONTENT_LENGTH_INDEX || nameIndex == CONTENT_RANGE_INDEX) {
            return false;
        }
        return (long) nameLength + valueLength + HpackTable.ENTRY_OVERHEAD <= table.maxSize() / 2;
    }

    private void string(byte[] src, int offset, int length, WireBuffer out) {
        if (huffman != Huffman.NEVER) {
            int coded = HpackHuffman.encodedLength(src, offset, length);
            if (huffman == Huffman.ALWAYS || coded < length) {
                integer(out, 0x80, 7, coded);
                HpackHuffman.encode(src, offset, length, out);
                return;
            }
        }
        integer(out, 0x00, 7, length);
        out.put(src, offset, length);
    }

    /** RFC 7541 5.1: {@code value} with an N-bit prefix, the first octet's other bits being {@code pattern}. */
    static void integer(WireBuffer out, int pattern, int prefixBits, long value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.put(pattern | (int) value);
            return;
        }
        out.put(pattern | max);
        long rest = value - max;
        while (rest >= 0x80) {
            out.put((int) (rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        out.put((int) rest);
    }

    /** The name's hash for table look-ups, refusing upper case, which HTTP/2 makes malformed (RFC 9113 8.2.1). */
    private static int lowerCaseNameHash(byte[] name, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (name[i] >= 'A' && name[i] <= 'Z') {
                throw new IllegalArgumentException("a header name with upper case: "
                        + new String(name, offset, length, StandardCharsets.ISO_8859_1));
            }
        }
        return HpackTable.hash(name, offset, length);
    }

    /** Copies {@code s} into the name or value scratch as Latin-1 octets; returns its length. */
    private int latin1(String s, boolean name) {
        int n = s.length();
        byte[] dst = name ? nameScratch : valueScratch;
        if (dst.length < n) {
            dst = new byte[Math.max(n, dst.length * 2)];
            if (name) {
                nameScratch = dst;
            } else {
                valueScratch = dst;
            }
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c > 0xFF) {
                throw new IllegalArgumentException("a header " + (name ? "name" : "value") + " with a character beyond Latin-1: " + s);
            }
            dst[i] = (byte) c;
        }
        return n;
    }
}
