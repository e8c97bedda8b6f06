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
import java.lang.foreign.ValueLayout.OfInt;
import java.lang.foreign.ValueLayout.OfLong;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct io_sqring_offsets {
 *     __u32 head;
 *     __u32 tail;
 *     __u32 ring_mask;
 *     __u32 ring_entries;
 *     __u32 flags;
 *     __u32 dropped;
 *     __u32 array;
 *     __u32 resv1;
 *     __u64 resv2;
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_sqring_offsets {

    io_sqring_offsets() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_INT.withName("head"),
        LibUring.C_INT.withName("tail"),
        LibUring.C_INT.withName("ring_mask"),
        LibUring.C_INT.withName("ring_entries"),
        LibUring.C_INT.withName("flags"),
        LibUring.C_INT.withName("dropped"),
        LibUring.C_INT.withName("array"),
        LibUring.C_INT.withName("resv1"),
        LibUring.C_LONG_LONG.withName("resv2")
    ).withName("io_sqring_offsets");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfInt head$LAYOUT = (OfInt) $LAYOUT.select(groupElement("head"));

    public static final OfInt head$layout() {
        return head$LAYOUT;
    }

    private static final long head$OFFSET = $LAYOUT.byteOffset(groupElement("head"));

    public static final long head$offset() {
        return head$OFFSET;
    }

    public static int head(MemorySegment struct) {
        return struct.get(head$LAYOUT, head$OFFSET);
    }

    public static void head(MemorySegment struct, int fieldValue) {
        struct.set(head$LAYOUT, head$OFFSET, fieldValue);
    }

    private static final OfInt tail$LAYOUT = (OfInt) $LAYOUT.select(groupElement("tail"));

    public static final OfInt tail$layout() {
        return tail$LAYOUT;
    }

    private static final long tail$OFFSET = $LAYOUT.byteOffset(groupElement("tail"));

    public static final long tail$offset() {
        return tail$OFFSET;
    }

    public static int tail(MemorySegment struct) {
        return struct.get(tail$LAYOUT, tail$OFFSET);
    }

    public static void tail(MemorySegment struct, int fieldValue) {
        struct.set(tail$LAYOUT, tail$OFFSET, fieldValue);
    }

    private static final OfInt ring_mask$LAYOUT = (OfInt) $LAYOUT.select(groupElement("ring_mask"));

    public static final OfInt ring_mask$layout() {
        return ring_mask$LAYOUT;
    }

    private static final long ring_mask$OFFSET = $LAYOUT.byteOffset(groupElement("ring_mask"));

    public static final long ring_mask$offset() {
        return ring_mask$OFFSET;
    }

    public static int ring_mask(MemorySegment struct) {
        return struct.get(ring_mask$LAYOUT, ring_mask$OFFSET);
    }

    public static void ring_mask(MemorySegment struct, int fieldValue) {
        struct.set(ring_mask$LAYOUT, ring_mask$OFFSET, fieldValue);
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

    private static final OfInt flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("flags"));

    public static final OfInt flags$layout() {
        return flags$LAYOUT;
    }

    private static final long flags$OFFSET = $LAYOUT.byteOffset(groupElement("flags"));

    public static final long flags$offset() {
        return flags$OFFSET;
    }

    public static int flags(MemorySegment struct) {
        return struct.get(flags$LAYOUT, flags$OFFSET);
    }

    public static void flags(MemorySegment struct, int fieldValue) {
        struct.set(flags$LAYOUT, flags$OFFSET, fieldValue);
    }

    private static final OfInt dropped$LAYOUT = (OfInt) $LAYOUT.select(groupElement("dropped"));

    public static final OfInt dropped$layout() {
        return dropped$LAYOUT;
    }

    private static final long dropped$OFFSET = $LAYOUT.byteOffset(groupElement("dropped"));

    public static final long dropped$offset() {
        return dropped$OFFSET;
    }

    public static int dropped(MemorySegment struct) {
        return struct.get(dropped$LAYOUT, dropped$OFFSET);
    }

    public static void dropped(MemorySegment struct, int fieldValue) {
        struct.set(dropped$LAYOUT, dropped$OFFSET, fieldValue);
    }

    private static final OfInt array$LAYOUT = (OfInt) $LAYOUT.select(groupElement("array"));

    public static final OfInt array$layout() {
        return array$LAYOUT;
    }

    private static final long array$OFFSET = $LAYOUT.byteOffset(groupElement("array"));

    public static final long array$offset() {
        return array$OFFSET;
    }

    public static int array(MemorySegment struct) {
        return struct.get(array$LAYOUT, array$OFFSET);
    }

    public static void array(MemorySegment struct, int fieldValue) {
        struct.set(array$LAYOUT, array$OFFSET, fieldValue);
    }

    private static final OfInt resv1$LAYOUT = (OfInt) $LAYOUT.select(groupElement("resv1"));

    public static final OfInt resv1$layout() {
        return resv1$LAYOUT;
    }

    private static final long resv1$OFFSET = $LAYOUT.byteOffset(groupElement("resv1"));

    public static final long resv1$offset() {
        return resv1$OFFSET;
    }

    public static int resv1(MemorySegment struct) {
        return struct.get(resv1$LAYOUT, resv1$OFFSET);
    }

    public static void resv1(MemorySegment struct, int fieldValue) {
        struct.set(resv1$LAYOUT, resv1$OFFSET, fieldValue);
    }

    private static final OfLong resv2$LAYOUT = (OfLong) $LAYOUT.select(groupElement("resv2"));

    public static final OfLong resv2$layout() {
        return resv2$LAYOUT;
    }

    private static final long resv2$OFFSET = $LAYOUT.byteOffset(groupElement("resv2"));

    public static final long resv2$offset() {
        return resv2$OFFSET;
    }

    public static long resv2(MemorySegment struct) {
        return struct.get(resv2$LAYOUT, resv2$OFFSET);
    }

    public static void resv2(MemorySegment struct, long fieldValue) {
        struct.set(resv2$LAYOUT, resv2$OFFSET, fieldValue);
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
