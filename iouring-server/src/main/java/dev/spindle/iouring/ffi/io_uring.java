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
import java.lang.foreign.ValueLayout.OfInt;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct io_uring {
 *     struct io_uring_sq sq;
 *     struct io_uring_cq cq;
 *     unsigned flags;
 *     int ring_fd;
 *     unsigned features;
 *     int enter_ring_fd;
 *     __u8 int_flags;
 *     __u8 pad[3];
 *     unsigned pad2;
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring {

    io_uring() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        io_uring_sq.layout().withName("sq"),
        io_uring_cq.layout().withName("cq"),
        LibUring.C_INT.withName("flags"),
        LibUring.C_INT.withName("ring_fd"),
        LibUring.C_INT.withName("features"),
        LibUring.C_INT.withName("enter_ring_fd"),
        LibUring.C_CHAR.withName("int_flags"),
        MemoryLayout.sequenceLayout(3, LibUring.C_CHAR).withName("pad"),
        LibUring.C_INT.withName("pad2")
    ).withName("io_uring");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final GroupLayout sq$LAYOUT = (GroupLayout) $LAYOUT.select(groupElement("sq"));

    public static final GroupLayout sq$layout() {
        return sq$LAYOUT;
    }

    private static final long sq$OFFSET = $LAYOUT.byteOffset(groupElement("sq"));

    public static final long sq$offset() {
        return sq$OFFSET;
    }

    public static MemorySegment sq(MemorySegment struct) {
        return struct.asSlice(sq$OFFSET, sq$LAYOUT.byteSize());
    }

    public static void sq(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, sq$OFFSET, sq$LAYOUT.byteSize());
    }

    private static final GroupLayout cq$LAYOUT = (GroupLayout) $LAYOUT.select(groupElement("cq"));

    public static final GroupLayout cq$layout() {
        return cq$LAYOUT;
    }

    private static final long cq$OFFSET = $LAYOUT.byteOffset(groupElement("cq"));

    public static final long cq$offset() {
        return cq$OFFSET;
    }

    public static MemorySegment cq(MemorySegment struct) {
        return struct.asSlice(cq$OFFSET, cq$LAYOUT.byteSize());
    }

    public static void cq(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, cq$OFFSET, cq$LAYOUT.byteSize());
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

    private static final OfInt ring_fd$LAYOUT = (OfInt) $LAYOUT.select(groupElement("ring_fd"));

    public static final OfInt ring_fd$layout() {
        return ring_fd$LAYOUT;
    }

    private static final long ring_fd$OFFSET = $LAYOUT.byteOffset(groupElement("ring_fd"));

    public static final long ring_fd$offset() {
        return ring_fd$OFFSET;
    }

    public static int ring_fd(MemorySegment struct) {
        return struct.get(ring_fd$LAYOUT, ring_fd$OFFSET);
    }

    public static void ring_fd(MemorySegment struct, int fieldValue) {
        struct.set(ring_fd$LAYOUT, ring_fd$OFFSET, fieldValue);
    }

    private static final OfInt features$LAYOUT = (OfInt) $LAYOUT.select(groupElement("features"));

    public static final OfInt features$layout() {
        return features$LAYOUT;
    }

    private static final long features$OFFSET = $LAYOUT.byteOffset(groupElement("features"));

    public static final long features$offset() {
        return features$OFFSET;
    }

    public static int features(MemorySegment struct) {
        return struct.get(features$LAYOUT, features$OFFSET);
    }

    public static void features(MemorySegment struct, int fieldValue) {
        struct.set(features$LAYOUT, features$OFFSET, fieldValue);
    }

    private static final OfInt enter_ring_fd$LAYOUT = (OfInt) $LAYOUT.select(groupElement("enter_ring_fd"));

    public static final OfInt enter_ring_fd$layout() {
        return enter_ring_fd$LAYOUT;
    }

    private static final long enter_ring_fd$OFFSET = $LAYOUT.byteOffset(groupElement("enter_ring_fd"));

    public static final long enter_ring_fd$offset() {
        return enter_ring_fd$OFFSET;
    }

    public static int enter_ring_fd(MemorySegment struct) {
        return struct.get(enter_ring_fd$LAYOUT, enter_ring_fd$OFFSET);
    }

    public static void enter_ring_fd(MemorySegment struct, int fieldValue) {
        struct.set(enter_ring_fd$LAYOUT, enter_ring_fd$OFFSET, fieldValue);
    }

    private static final OfByte int_flags$LAYOUT = (OfByte) $LAYOUT.select(groupElement("int_flags"));

    public static final OfByte int_flags$layout() {
        return int_flags$LAYOUT;
    }

    private static final long int_flags$OFFSET = $LAYOUT.byteOffset(groupElement("int_flags"));

    public static final long int_flags$offset() {
        return int_flags$OFFSET;
    }

    public static byte int_flags(MemorySegment struct) {
        return struct.get(int_flags$LAYOUT, int_flags$OFFSET);
    }

    public static void int_flags(MemorySegment struct, byte fieldValue) {
        struct.set(int_flags$LAYOUT, int_flags$OFFSET, fieldValue);
    }

    private static final SequenceLayout pad$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("pad"));

    public static final SequenceLayout pad$layout() {
        return pad$LAYOUT;
    }

    private static final long pad$OFFSET = $LAYOUT.byteOffset(groupElement("pad"));

    public static final long pad$offset() {
        return pad$OFFSET;
    }

    public static MemorySegment pad(MemorySegment struct) {
        return struct.asSlice(pad$OFFSET, pad$LAYOUT.byteSize());
    }

    public static byte pad(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_CHAR, pad$OFFSET + index0 * LibUring.C_CHAR.byteSize());
    }

    public static void pad(MemorySegment struct, long index0, byte fieldValue) {
        struct.set(LibUring.C_CHAR, pad$OFFSET + index0 * LibUring.C_CHAR.byteSize(), fieldValue);
    }

    private static final OfInt pad2$LAYOUT = (OfInt) $LAYOUT.select(groupElement("pad2"));

    public static final OfInt pad2$layout() {
        return pad2$LAYOUT;
    }

    private static final long pad2$OFFSET = $LAYOUT.byteOffset(groupElement("pad2"));

    public static final long pad2$offset() {
        return pad2$OFFSET;
    }

    public static int pad2(MemorySegment struct) {
        return struct.get(pad2$LAYOUT, pad2$OFFSET);
    }

    public static void pad2(MemorySegment struct, int fieldValue) {
        struct.set(pad2$LAYOUT, pad2$OFFSET, fieldValue);
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
