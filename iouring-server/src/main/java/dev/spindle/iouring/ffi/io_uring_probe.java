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
import java.lang.foreign.ValueLayout.OfByte;
import java.lang.foreign.ValueLayout.OfShort;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct io_uring_probe {
 *     __u8 last_op;
 *     __u8 ops_len;
 *     __u16 resv;
 *     __u32 resv2[3];
 *     struct io_uring_probe_op ops[];
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_probe {

    io_uring_probe() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_CHAR.withName("last_op"),
        LibUring.C_CHAR.withName("ops_len"),
        LibUring.C_SHORT.withName("resv"),
        MemoryLayout.sequenceLayout(3, LibUring.C_INT).withName("resv2"),
        MemoryLayout.sequenceLayout(0, io_uring_probe_op.layout()).withName("ops")
    ).withName("io_uring_probe");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfByte last_op$LAYOUT = (OfByte) $LAYOUT.select(groupElement("last_op"));

    public static final OfByte last_op$layout() {
        return last_op$LAYOUT;
    }

    private static final long last_op$OFFSET = $LAYOUT.byteOffset(groupElement("last_op"));

    public static final long last_op$offset() {
        return last_op$OFFSET;
    }

    public static byte last_op(MemorySegment struct) {
        return struct.get(last_op$LAYOUT, last_op$OFFSET);
    }

    public static void last_op(MemorySegment struct, byte fieldValue) {
        struct.set(last_op$LAYOUT, last_op$OFFSET, fieldValue);
    }

    private static final OfByte ops_len$LAYOUT = (OfByte) $LAYOUT.select(groupElement("ops_len"));

    public static final OfByte ops_len$layout() {
        return ops_len$LAYOUT;
    }

    private static final long ops_len$OFFSET = $LAYOUT.byteOffset(groupElement("ops_len"));

    public static final long ops_len$offset() {
        return ops_len$OFFSET;
    }

    public static byte ops_len(MemorySegment struct) {
        return struct.get(ops_len$LAYOUT, ops_len$OFFSET);
    }

    public static void ops_len(MemorySegment struct, byte fieldValue) {
        struct.set(ops_len$LAYOUT, ops_len$OFFSET, fieldValue);
    }

    private static final OfShort resv$LAYOUT = (OfShort) $LAYOUT.select(groupElement("resv"));

    public static final OfShort resv$layout() {
        return resv$LAYOUT;
    }

    private static final long resv$OFFSET = $LAYOUT.byteOffset(groupElement("resv"));

    public static final long resv$offset() {
        return resv$OFFSET;
    }

    public static short resv(MemorySegment struct) {
        return struct.get(resv$LAYOUT, resv$OFFSET);
    }

    public static void resv(MemorySegment struct, short fieldValue) {
        struct.set(resv$LAYOUT, resv$OFFSET, fieldValue);
    }

    private static final SequenceLayout resv2$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("resv2"));

    public static final SequenceLayout resv2$layout() {
        return resv2$LAYOUT;
    }

    private static final long resv2$OFFSET = $LAYOUT.byteOffset(groupElement("resv2"));

    public static final long resv2$offset() {
        return resv2$OFFSET;
    }

    public static MemorySegment resv2(MemorySegment struct) {
        return struct.asSlice(resv2$OFFSET, resv2$LAYOUT.byteSize());
    }

    public static int resv2(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_INT, resv2$OFFSET + index0 * LibUring.C_INT.byteSize());
    }

    public static void resv2(MemorySegment struct, long index0, int fieldValue) {
        struct.set(LibUring.C_INT, resv2$OFFSET + index0 * LibUring.C_INT.byteSize(), fieldValue);
    }

    private static final SequenceLayout ops$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("ops"));

    public static final SequenceLayout ops$layout() {
        return ops$LAYOUT;
    }

    private static final long ops$OFFSET = $LAYOUT.byteOffset(groupElement("ops"));

    public static final long ops$offset() {
        return ops$OFFSET;
    }

    public static MemorySegment ops(MemorySegment struct) {
        return struct.asSlice(ops$OFFSET, ops$LAYOUT.byteSize());
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
