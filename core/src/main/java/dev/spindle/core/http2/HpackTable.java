package dev.spindle.core.http2;

/**
 * HPACK's index space (RFC 7541 2.3): the 61 entries of the static table, then the dynamic table,
 * newest first. The dynamic table is a ring of name/value pairs whose size is counted as RFC 7541
 * 4.1 says (the octets of name and value plus 32 per entry); adding beyond the maximum evicts the
 * oldest entries, and an entry larger than the maximum empties the table.
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

    private String[] names = new String[16];
    private String[] values = new String[16];
    /** Slot of the newest entry; entries run backwards from it, wrapping. */
    private int head = -1;
    private int count;
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

    String name(int index) {
        return index <= STATIC_LENGTH ? STATIC[index - 1][0] : names[slot(index)];
    }

    String value(int index) {
        return index <= STATIC_LENGTH ? STATIC[index - 1][1] : values[slot(index)];
    }

    private int slot(int index) {
        int age = index - STATIC_LENGTH - 1;
        return Math.floorMod(head - age, names.length);
    }

    /** Adds an entry as the newest, evicting the oldest until it fits (RFC 7541 4.4). */
    void add(String name, String value) {
        long entry = (long) name.length() + value.length() + ENTRY_OVERHEAD;
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
        count++;
        size += entry;
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
        size -= (long) names[oldest].length() + values[oldest].length() + ENTRY_OVERHEAD;
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
        String[] newNames = new String[n * 2];
        String[] newValues = new String[n * 2];
        for (int age = 0; age < count; age++) {
            int from = Math.floorMod(head - age, n);
            newNames[count - 1 - age] = names[from];
            newValues[count - 1 - age] = values[from];
        }
        names = newNames;
        values = newValues;
        head = count - 1;
    }
}
