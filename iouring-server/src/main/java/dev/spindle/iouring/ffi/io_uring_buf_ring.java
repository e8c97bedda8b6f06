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
 * struct io_uring_buf_ring {
 *     union {
 *         struct { __u64 resv1; __u32 resv2; __u16 resv3; __u16 tail; };
 *         struct io_uring_buf bufs[0];
 *     };
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_buf_ring {

    io_uring_buf_ring() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(
                LibUring.C_LONG_LONG.withName("resv1"),
                LibUring.C_INT.withName("resv2"),
                LibUring.C_SHORT.withName("resv3"),
                LibUring.C_SHORT.withName("tail")
            ).withName("$anon$2"),
            MemoryLayout.sequenceLayout(0, io_uring_buf.layout()).withName("bufs")
        ).withName("$anon$1")
    ).withName("io_uring_buf_ring");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfLong resv1$LAYOUT = (OfLong) $LAYOUT.select(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("resv1"));

    public static final OfLong resv1$layout() {
        return resv1$LAYOUT;
    }

    private static final long resv1$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("resv1"));

    public static final long resv1$offset() {
        return resv1$OFFSET;
    }

    public static long resv1(MemorySegment struct) {
        return struct.get(resv1$LAYOUT, resv1$OFFSET);
    }

    public static void resv1(MemorySegment struct, long fieldValue) {
        struct.set(resv1$LAYOUT, resv1$OFFSET, fieldValue);
    }

    private static final OfInt resv2$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("resv2"));

    public static final OfInt resv2$layout() {
        return resv2$LAYOUT;
    }

    private static final long resv2$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("resv2"));

    public static final long resv2$offset() {
        return resv2$OFFSET;
    }

    public static int resv2(MemorySegment struct) {
        return struct.get(resv2$LAYOUT, resv2$OFFSET);
    }

    public static void resv2(MemorySegment struct, int fieldValue) {
        struct.set(resv2$LAYOUT, resv2$OFFSET, fieldValue);
    }

    private static final OfShort resv3$LAYOUT = (OfShort) $LAYOUT.select(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("resv3"));

    public static final OfShort resv3$layout() {
        return resv3$LAYOUT;
    }

    private static final long resv3$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("resv3"));

    public static final long resv3$offset() {
        return resv3$OFFSET;
    }

    public static short resv3(MemorySegment struct) {
        return struct.get(resv3$LAYOUT, resv3$OFFSET);
    }

    public static void resv3(MemorySegment struct, short fieldValue) {
        struct.set(resv3$LAYOUT, resv3$OFFSET, fieldValue);
    }

    private static final OfShort tail$LAYOUT = (OfShort) $LAYOUT.select(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("tail"));

    public static final OfShort tail$layout() {
        return tail$LAYOUT;
    }

    private static final long tail$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("tail"));

    public static final long tail$offset() {
        return tail$OFFSET;
    }

    public static short tail(MemorySegment struct) {
        return struct.get(tail$LAYOUT, tail$OFFSET);
    }

    public static void tail(MemorySegment struct, short fieldValue) {
        struct.set(tail$LAYOUT, tail$OFFSET, fieldValue);
    }

    private static final SequenceLayout bufs$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("$anon$1"), groupElement("bufs"));

    public static final SequenceLayout bufs$layout() {
        return bufs$LAYOUT;
    }

    private static final long bufs$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("bufs"));

    public static final long bufs$offset() {
        return bufs$OFFSET;
    }

    public static MemorySegment bufs(MemorySegment struct) {
        return struct.asSlice(bufs$OFFSET, bufs$LAYOUT.byteSize());
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
