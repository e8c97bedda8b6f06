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
import java.lang.foreign.ValueLayout.OfLong;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct __kernel_timespec {
 *     __kernel_time64_t tv_sec;
 *     long long tv_nsec;
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class __kernel_timespec {

    __kernel_timespec() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_LONG_LONG.withName("tv_sec"),
        LibUring.C_LONG_LONG.withName("tv_nsec")
    ).withName("__kernel_timespec");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfLong tv_sec$LAYOUT = (OfLong) $LAYOUT.select(groupElement("tv_sec"));

    public static final OfLong tv_sec$layout() {
        return tv_sec$LAYOUT;
    }

    private static final long tv_sec$OFFSET = $LAYOUT.byteOffset(groupElement("tv_sec"));

    public static final long tv_sec$offset() {
        return tv_sec$OFFSET;
    }

    public static long tv_sec(MemorySegment struct) {
        return struct.get(tv_sec$LAYOUT, tv_sec$OFFSET);
    }

    public static void tv_sec(MemorySegment struct, long fieldValue) {
        struct.set(tv_sec$LAYOUT, tv_sec$OFFSET, fieldValue);
    }

    private static final OfLong tv_nsec$LAYOUT = (OfLong) $LAYOUT.select(groupElement("tv_nsec"));

    public static final OfLong tv_nsec$layout() {
        return tv_nsec$LAYOUT;
    }

    private static final long tv_nsec$OFFSET = $LAYOUT.byteOffset(groupElement("tv_nsec"));

    public static final long tv_nsec$offset() {
        return tv_nsec$OFFSET;
    }

    public static long tv_nsec(MemorySegment struct) {
        return struct.get(tv_nsec$LAYOUT, tv_nsec$OFFSET);
    }

    public static void tv_nsec(MemorySegment struct, long fieldValue) {
        struct.set(tv_nsec$LAYOUT, tv_nsec$OFFSET, fieldValue);
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
