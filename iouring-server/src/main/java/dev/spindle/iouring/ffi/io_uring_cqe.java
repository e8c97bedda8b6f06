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
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct io_uring_cqe {
 *     __u64 user_data;
 *     __s32 res;
 *     __u32 flags;
 *     __u64 big_cqe[];
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_cqe {

    io_uring_cqe() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_LONG_LONG.withName("user_data"),
        LibUring.C_INT.withName("res"),
        LibUring.C_INT.withName("flags"),
        MemoryLayout.sequenceLayout(0, LibUring.C_LONG_LONG).withName("big_cqe")
    ).withName("io_uring_cqe");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfLong user_data$LAYOUT = (OfLong) $LAYOUT.select(groupElement("user_data"));

    public static final OfLong user_data$layout() {
        return user_data$LAYOUT;
    }

    private static final long user_data$OFFSET = $LAYOUT.byteOffset(groupElement("user_data"));

    public static final long user_data$offset() {
        return user_data$OFFSET;
    }

    public static long user_data(MemorySegment struct) {
        return struct.get(user_data$LAYOUT, user_data$OFFSET);
    }

    public static void user_data(MemorySegment struct, long fieldValue) {
        struct.set(user_data$LAYOUT, user_data$OFFSET, fieldValue);
    }

    private static final OfInt res$LAYOUT = (OfInt) $LAYOUT.select(groupElement("res"));

    public static final OfInt res$layout() {
        return res$LAYOUT;
    }

    private static final long res$OFFSET = $LAYOUT.byteOffset(groupElement("res"));

    public static final long res$offset() {
        return res$OFFSET;
    }

    public static int res(MemorySegment struct) {
        return struct.get(res$LAYOUT, res$OFFSET);
    }

    public static void res(MemorySegment struct, int fieldValue) {
        struct.set(res$LAYOUT, res$OFFSET, fieldValue);
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

    private static final SequenceLayout big_cqe$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("big_cqe"));

    public static final SequenceLayout big_cqe$layout() {
        return big_cqe$LAYOUT;
    }

    private static final long big_cqe$OFFSET = $LAYOUT.byteOffset(groupElement("big_cqe"));

    public static final long big_cqe$offset() {
        return big_cqe$OFFSET;
    }

    public static MemorySegment big_cqe(MemorySegment struct) {
        return struct.asSlice(big_cqe$OFFSET, big_cqe$LAYOUT.byteSize());
    }

    public static long big_cqe(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_LONG_LONG, big_cqe$OFFSET + index0 * LibUring.C_LONG_LONG.byteSize());
    }

    public static void big_cqe(MemorySegment struct, long index0, long fieldValue) {
        struct.set(LibUring.C_LONG_LONG, big_cqe$OFFSET + index0 * LibUring.C_LONG_LONG.byteSize(), fieldValue);
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
