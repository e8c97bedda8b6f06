// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * HPACK's index space (RFC 7541 2.3): the 61 entries of the static table, then the dynamic table,
 * newest first. The dynamic table is a ring of name/value pairs whose size is counted as RFC 7541
 * 4.1 says (the octets of name and value plus 32 per entry); adding beyond the maximum evicts the
 * oldest entries, and an entry larger than the maximum empties the table.
 *
 * <p>Names and values are octets, not Strings, so that a connection hands fields on without
 * decoding text. An entry's arrays are never changed after it is added, so a name can be shared
 * between entries and handed out as is. Each entry keeps hashes of its name and value so that the
 * encoder's look-up compares bytes only for likely matches.
 */
final class HpackTable {
    static final int STATIC_LENGTH = 61;
    /** RFC 7541 4.1: the overhead counted per entry. */
    static final int ENTRY_OVERHEAD = 32;

    private static final String[][] STATIC = {
        {":authority", ""}, {":method", "GET"}, {":method", "POST"}, {":path", "/"}, {":path", "/index.html"},
        {":scheme", "http"}, {":scheme", "https"}, {":status", "200"}, {":status", "204"}, {":status", "206"},
        {":status", "304"}, {":status", "400"}, {":status", "404"}, {":status", "500"}, {"accept-charset", ""},
        {"accept-encoding", "gzip, deflate"}, {"accept-language", ""}, {"accept-ranges", ""}, {"accept", ""},
        {"access-control-allow-origin", ""}, {"age", ""}, {"allow", ""}, {"authorization", ""},
        {"cache-control", ""}, {"content-disposition", ""}, {"content-encoding", ""}, {"content-language", ""},
        {"content-length", ""}, {"content-location", ""}, {"content-range", ""}, {"content-type", ""},
        {"cookie", ""}, {"date", ""}, {"etag", ""}, {"expect", ""}, {"expires", ""}, {"from", ""}, {"host", ""},
        {"if-match", ""}, {"if-modified-since", ""}, {"if-none-match", ""}, {"if-range", ""},
        {"if-unmodified-since", ""}, {"last-modified", ""}, {"link", ""}, {"location", ""}, {"max-forwards", ""},
        {"proxy-authenticate", ""}, {"proxy-authorization", ""}, {"range", ""}, {"referer", ""}, {"refresh", ""},
        {"retry-after", ""}, {"server", ""}, {"set-cookie", ""}, {"strict-transport-security", ""},
        {"transfer-encoding", ""}, {"user-agent", ""}, {"vary", ""}, {"via", ""}, {"www-authenticate", ""},
    };
    private static final byte[][] STATIC_NAMES = new byte[STATIC_LENGTH][];
    private static final byte[][] STATIC_VALUES = new byte[STATIC_LENGTH][];
    /** Per name length: the static indices whose name has that length, first of each name only. */
    private static final int[][] STATIC_BY_NAME_LENGTH;

    static {
        byte[] empty = new byte[0];
        int longest = 0;
        for (int i = 0; i < STATIC_LENGTH; i++) {
            // entries with the same name share one array, so a name match can compare references first
            STATIC_NAMES[i] = i > 0 && STATIC[i][0].equals(STATIC[i - 1][0])
                    ? STATIC_NAMES[i - 1] : STATIC[i][0].getBytes(StandardCharsets.ISO_8859_1);
            STATIC_VALUES[i] = STATIC[i][1].isEmpty() ? empty : STATIC[i][1].getBytes(StandardCharsets.ISO_8859_1);
            longest = Math.max(longest, STATIC_NAMES[i].length);
        }
        int[] counts = new int[longest + 1];
        for (int i = 0; i < STATIC_LENGTH; i++) {
            if (i == 0 || STATIC_NAMES[i] != STATIC_NAMES[i - 1]) {
                counts[STATIC_NAMES[i].length]++;
            }
        }
        STATIC_BY_NAME_LENGTH = new int[longest + 1][];
        for (int length = 0; length <= longest; length++) {
            STATIC_BY_NAME_LENGTH[length] = new int[counts[length]];
            counts[length] = 0;
        }
        for (int i = 0; i < STATIC_LENGTH; i++) {
            if (i == 0 || STATIC_NAMES[i] != STATIC_NAMES[i - 1]) {
                int length = STATIC_NAMES[i].length;
                STATIC_BY_NAME_LENGTH[length][counts[length]++] = i + 1;
            }
        }
    }

    private byte[][] names = new byte[16][];
    private byte[][] values = new byte[16][];
    private int[] nameHashes = new int[16];
    private int[] valueHashes = new int[16];
    /** Slot of the newest entry; entries run backwards from it, wrapping. */
    private int head = -1;
    private int count;
    /** Entries ever added: the insertion number of the newest is {@code inserted - 1}. */
    private long inserted;
    private long size;
    private long maxSize;

    HpackTable(long maxSize) {
        this.maxSize = maxSize;
    }

    /** Entries in the dynamic table. */
    int dynamicLength() {
        return count;
    }

    /** Size of the dynamic table as RFC 7541 4.1 counts it. */
    long size() {
        return size;
    }

    long maxSize() {
        return maxSize;
    }

    /** Whether {@code index} (1-based, static then dynamic) names an entry. */
    boolean has(long index) {
        return index >= 1 && index <= STATIC_LENGTH + count;
    }

    /** The name at {@code index}; the caller must not change the array. */
    byte[] name(int index) {
        return index <= STATIC_LENGTH ? STATIC_NAMES[index - 1] : names[slot(index)];
    }

    /** The value at {@code index}; the caller must not change the array. */
    byte[] value(int index) {
        return index <= STATIC_LENGTH ? STATIC_VALUES[index - 1] : values[slot(index)];
    }

    private int slot(int index) {
        int age = index - STATIC_LENGTH - 1;
        return Math.floorMod(head - age, names.length);
    }

    /** The hash {@link #find} expects: cheap, over octets, with no allocation. */
    static int hash(byte[] src, int offset, int length) {
        int h = length;
        for (int i = offset; i < offset + length; i++) {
            h = 31 * h + src[i];
        }
        return h;
    }

    /**
     * The smallest index whose entry is exactly this field; failing that, minus the smallest index
     * with this name; failing that, 0. Static entries come first, so their shorter indices win.
     */
    int find(byte[] name, int nameOffset, int nameLength, int nameHash,
            byte[] value, int valueOffset, int valueLength, int valueHash) {
        int nameIndex = 0;
        if (nameLength < STATIC_BY_NAME_LENGTH.length) {
            for (int first : STATIC_BY_NAME_LENGTH[nameLength]) {
                byte[] candidate = STATIC_NAMES[first - 1];
                if (!Arrays.equals(candidate, 0, nameLength, name, nameOffset, nameOffset + nameLength)) {
                    continue;
                }
                for (int i = first; i <= STATIC_LENGTH && STATIC_NAMES[i - 1] == candidate; i++) {
                    byte[] v = STATIC_VALUES[i - 1];
                    if (Arrays.equals(v, 0, v.length, value, valueOffset, valueOffset + valueLength)) {
                        return i;
                    }
                }
                nameIndex = first;
                break;
            }
        }
        for (int age = 0; age < count; age++) {
            int slot = Math.floorMod(head - age, names.length);
            if (nameHashes[slot] != nameHash) {
                continue;
            }
            byte[] n = names[slot];
            if (!Arrays.equals(n, 0, n.length, name, nameOffset, nameOffset + nameLength)) {
                continue;
            }
            byte[] v = values[slot];
            if (valueHashes[slot] == valueHash
                    && Arrays.equals(v, 0, v.length, value, valueOffset, valueOffset + valueLength)) {
                return STATIC_LENGTH + 1 + age;
            }
            if (nameIndex == 0) {
                nameIndex = STATIC_LENGTH + 1 + age;
            }
        }
        return -nameIndex;
    }

    /**
     * Adds an entry as the newest, evicting the oldest until it fits (RFC 7541 4.4). The table
     * keeps both arrays, which must not change afterwards.
     */
    void add(byte[] name, byte[] value) {
        long entry = (long) name.length + value.length + ENTRY_OVERHEAD;
        if (entry > maxSize) {
            clear();
            return;
        }
        while (size + entry > maxSize) {
            evictOldest();
        }
        if (count == names.length) {
            grow();
        }
        head = (head + 1) % names.length;
        names[head] = name;
        values[head] = value;
        nameHashes[head] = hash(name, 0, name.length);
        valueHashes[head] = hash(value, 0, value.length);
        count++;
        inserted++;
        size += entry;
    }

    /** How many entries were ever added; the newest has insertion number {@code inserted() - 1}. */
    long inserted() {
        return inserted;
    }

    /**
     * The index (62 and up) of the entry with insertion number {@code insertion}, or 0 when it has
     * been evicted: entries leave oldest first, so its age tells.
     */
    int indexOfInsertion(long insertion) {
        long age = inserted - 1 - insertion;
        return age >= 0 && age < count ? STATIC_LENGTH + 1 + (int) age : 0;
    }

    /** The insertion number of the dynamic entry at {@code index} (62 and up). */
    long insertionOf(int index) {
        return inserted - 1 - (index - STATIC_LENGTH - 1);
    }

    /** A dynamic table size update (RFC 7541 6.3): evicts until the table fits the new maximum. */
    void resize(long newMax) {
        maxSize = newMax;
        while (size > maxSize) {
            evictOldest();
        }
    }

    private void evictOldest() {
        int oldest = Math.floorMod(head - (count - 1), names.length);
        size -= (long) names[oldest].length + values[oldest].length + ENTRY_OVERHEAD;
        names[oldest] = null;
        values[oldest] = null;
        count--;
    }

    private void clear() {
        while (count > 0) {
            evictOldest();
        }
    }

    private void grow() {
        int n = names.length;
        byte[][] newNames = new byte[n * 2][];
        byte[][] newValues = new byte[n * 2][];
        int[] newNameHashes = new int[n * 2];
        int[] newValueHashes = new int[n * 2];
        for (int age = 0; age < count; age++) {
            int from = Math.floorMod(head - age, n);
            int to = count - 1 - age;
            newNames[to] = names[from];
            newValues[to] = values[from];
            newNameHashes[to] = nameHashes[from];
            newValueHashes[to] = valueHashes[from];
        }
        names = newNames;
        values = newValues;
        nameHashes = newNameHashes;
        valueHashes = newValueHashes;
        head = count - 1;
    }
}
