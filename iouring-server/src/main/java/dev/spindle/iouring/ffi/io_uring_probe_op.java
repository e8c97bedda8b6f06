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
import java.lang.foreign.ValueLayout.OfByte;
import java.lang.foreign.ValueLayout.OfInt;
import java.lang.foreign.ValueLayout.OfShort;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct io_uring_probe_op {
 *     __u8 op;
 *     __u8 resv;
 *     __u16 flags;
 *     __u32 resv2;
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_probe_op {

    io_uring_probe_op() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_CHAR.withName("op"),
        LibUring.C_CHAR.withName("resv"),
        LibUring.C_SHORT.withName("flags"),
        LibUring.C_INT.withName("resv2")
    ).withName("io_uring_probe_op");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfByte op$LAYOUT = (OfByte) $LAYOUT.select(groupElement("op"));

    public static final OfByte op$layout() {
        return op$LAYOUT;
    }

    private static final long op$OFFSET = $LAYOUT.byteOffset(groupElement("op"));

    public static final long op$offset() {
        return op$OFFSET;
    }

    public static byte op(MemorySegment struct) {
        return struct.get(op$LAYOUT, op$OFFSET);
    }

    public static void op(MemorySegment struct, byte fieldValue) {
        struct.set(op$LAYOUT, op$OFFSET, fieldValue);
    }

    private static final OfByte resv$LAYOUT = (OfByte) $LAYOUT.select(groupElement("resv"));

    public static final OfByte resv$layout() {
        return resv$LAYOUT;
    }

    private static final long resv$OFFSET = $LAYOUT.byteOffset(groupElement("resv"));

    public static final long resv$offset() {
        return resv$OFFSET;
    }

    public static byte resv(MemorySegment struct) {
        return struct.get(resv$LAYOUT, resv$OFFSET);
    }

    public static void resv(MemorySegment struct, byte fieldValue) {
        struct.set(resv$LAYOUT, resv$OFFSET, fieldValue);
    }

    private static final OfShort flags$LAYOUT = (OfShort) $LAYOUT.select(groupElement("flags"));

    public static final OfShort flags$layout() {
        return flags$LAYOUT;
    }

    private static final long flags$OFFSET = $LAYOUT.byteOffset(groupElement("flags"));

    public static final long flags$offset() {
        return flags$OFFSET;
    }

    public static short flags(MemorySegment struct) {
        return struct.get(flags$LAYOUT, flags$OFFSET);
    }

    public static void flags(MemorySegment struct, short fieldValue) {
        struct.set(flags$LAYOUT, flags$OFFSET, fieldValue);
    }

    private static final OfInt resv2$LAYOUT = (OfInt) $LAYOUT.select(groupElement("resv2"));

    public static final OfInt resv2$layout() {
        return resv2$LAYOUT;
    }

    private static final long resv2$OFFSET = $LAYOUT.byteOffset(groupElement("resv2"));

    public static final long resv2$offset() {
        return resv2$OFFSET;
    }

    public static int resv2(MemorySegment struct) {
        return struct.get(resv2$LAYOUT, resv2$OFFSET);
    }

    public static void resv2(MemorySegment struct, int fieldValue) {
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
