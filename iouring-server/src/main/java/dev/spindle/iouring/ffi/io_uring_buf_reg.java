// Hand-written in the shape jextract generates (jextract cannot be installed on our machines);
// regenerate with scripts/jextract-liburing.sh where it is. Checked against the C headers by
// StructLayoutTest (gcc + liburing-dev).
package dev.spindle.iouring.ffi;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.ValueLayout.OfInt;
import java.lang.foreign.ValueLayout.OfLong;
import java.lang.foreign.ValueLayout.OfShort;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct io_uring_buf_reg {
 *     __u64 ring_addr;
 *     __u32 ring_entries;
 *     __u16 bgid;
 *     __u16 pad;
 *     __u64 resv[3];
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_buf_reg {

    io_uring_buf_reg() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_LONG_LONG.withName("ring_addr"),
        LibUring.C_INT.withName("ring_entries"),
        LibUring.C_SHORT.withName("bgid"),
        LibUring.C_SHORT.withName("pad"),
        MemoryLayout.sequenceLayout(3, LibUring.C_LONG_LONG).withName("resv")
    ).withName("io_uring_buf_reg");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfLong ring_addr$LAYOUT = (OfLong) $LAYOUT.select(groupElement("ring_addr"));

    public static final OfLong ring_addr$layout() {
        return ring_addr$LAYOUT;
    }

    private static final long ring_addr$OFFSET = $LAYOUT.byteOffset(groupElement("ring_addr"));

    public static final long ring_addr$offset() {
        return ring_addr$OFFSET;
    }

    public static long ring_addr(MemorySegment struct) {
        return struct.get(ring_addr$LAYOUT, ring_addr$OFFSET);
    }

    public static void ring_addr(MemorySegment struct, long fieldValue) {
        struct.set(ring_addr$LAYOUT, ring_addr$OFFSET, fieldValue);
    }

    private static final OfInt ring_entries$LAYOUT = (OfInt) $LAYOUT.select(groupElement("ring_entries"));

    public static final OfInt ring_entries$layout() {
        return ring_entries$LAYOUT;
    }

    private static final long ring_entries$OFFSET = $LAYOUT.byteOffset(groupElement("ring_entries"));

    public static final long ring_entries$offset() {
        return ring_entries$OFFSET;
    }

    public static int ring_entries(MemorySegment struct) {
        return struct.get(ring_entries$LAYOUT, ring_entries$OFFSET);
    }

    public static void ring_entries(MemorySegment struct, int fieldValue) {
        struct.set(ring_entries$LAYOUT, ring_entries$OFFSET, fieldValue);
    }

    private static final OfShort bgid$LAYOUT = (OfShort) $LAYOUT.select(groupElement("bgid"));

    public static final OfShort bgid$layout() {
        return bgid$LAYOUT;
    }

    private static final long bgid$OFFSET = $LAYOUT.byteOffset(groupElement("bgid"));

    public static final long bgid$offset() {
        return bgid$OFFSET;
    }

    public static short bgid(MemorySegment struct) {
        return struct.get(bgid$LAYOUT, bgid$OFFSET);
    }

    public static void bgid(MemorySegment struct, short fieldValue) {
        struct.set(bgid$LAYOUT, bgid$OFFSET, fieldValue);
    }

    private static final OfShort pad$LAYOUT = (OfShort) $LAYOUT.select(groupElement("pad"));

    public static final OfShort pad$layout() {
        return pad$LAYOUT;
    }

    private static final long pad$OFFSET = $LAYOUT.byteOffset(groupElement("pad"));

    public static final long pad$offset() {
        return pad$OFFSET;
    }

    public static short pad(MemorySegment struct) {
        return struct.get(pad$LAYOUT, pad$OFFSET);
    }

    public static void pad(MemorySegment struct, short fieldValue) {
        struct.set(pad$LAYOUT, pad$OFFSET, fieldValue);
    }

    private static final SequenceLayout resv$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("resv"));

    public static final SequenceLayout resv$layout() {
        return resv$LAYOUT;
    }

    private static final long resv$OFFSET = $LAYOUT.byteOffset(groupElement("resv"));

    public static final long resv$offset() {
        return resv$OFFSET;
    }

    public static MemorySegment resv(MemorySegment struct) {
        return struct.asSlice(resv$OFFSET, resv$LAYOUT.byteSize());
    }

    public static long resv(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_LONG_LONG, resv$OFFSET + index0 * LibUring.C_LONG_LONG.byteSize());
    }

    public static void resv(MemorySegment struct, long index0, long fieldValue) {
        struct.set(LibUring.C_LONG_LONG, resv$OFFSET + index0 * LibUring.C_LONG_LONG.byteSize(), fieldValue);
    }

    /** The {@code index}-th element of an array of this struct. */
    public static MemorySegment asSlice(MemorySegment array, long index) {
        return array.asSlice(layout().byteSize() * index);
    }

    /** The size of this struct in bytes. */
    public static long sizeof() {
        return layout().byteSize();
    }

    /** Allocates a segment of this struct's size. */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate(layout());
    }

    /** Allocates an array of {@code elementCount} of this struct. */
    public static MemorySegment allocateArray(long elementCount, SegmentAllocator allocator) {
        return allocator.allocate(MemoryLayout.sequenceLayout(elementCount, layout()));
    }

    /** Reinterprets {@code addr} as one of this struct, in {@code arena}. */
    public static MemorySegment reinterpret(MemorySegment addr, Arena arena, Consumer<MemorySegment> cleanup) {
        return reinterpret(addr, 1, arena, cleanup);
    }

    /** Reinterprets {@code addr} as an array of {@code elementCount} of this struct, in {@code arena}. */
    public static MemorySegment reinterpret(MemorySegment addr, long elementCount, Arena arena, Consumer<MemorySegment> cleanup) {
        return addr.reinterpret(layout().byteSize() * elementCount, arena, cleanup);
    }
}
