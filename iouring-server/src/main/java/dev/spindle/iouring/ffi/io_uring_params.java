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
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct io_uring_params {
 *     __u32 sq_entries;
 *     __u32 cq_entries;
 *     __u32 flags;
 *     __u32 sq_thread_cpu;
 *     __u32 sq_thread_idle;
 *     __u32 features;
 *     __u32 wq_fd;
 *     __u32 resv[3];
 *     struct io_sqring_offsets sq_off;
 *     struct io_cqring_offsets cq_off;
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_params {

    io_uring_params() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_INT.withName("sq_entries"),
        LibUring.C_INT.withName("cq_entries"),
        LibUring.C_INT.withName("flags"),
        LibUring.C_INT.withName("sq_thread_cpu"),
        LibUring.C_INT.withName("sq_thread_idle"),
        LibUring.C_INT.withName("features"),
        LibUring.C_INT.withName("wq_fd"),
        MemoryLayout.sequenceLayout(3, LibUring.C_INT).withName("resv"),
        io_sqring_offsets.layout().withName("sq_off"),
        io_cqring_offsets.layout().withName("cq_off")
    ).withName("io_uring_params");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfInt sq_entries$LAYOUT = (OfInt) $LAYOUT.select(groupElement("sq_entries"));

    public static final OfInt sq_entries$layout() {
        return sq_entries$LAYOUT;
    }

    private static final long sq_entries$OFFSET = $LAYOUT.byteOffset(groupElement("sq_entries"));

    public static final long sq_entries$offset() {
        return sq_entries$OFFSET;
    }

    public static int sq_entries(MemorySegment struct) {
        return struct.get(sq_entries$LAYOUT, sq_entries$OFFSET);
    }

    public static void sq_entries(MemorySegment struct, int fieldValue) {
        struct.set(sq_entries$LAYOUT, sq_entries$OFFSET, fieldValue);
    }

    private static final OfInt cq_entries$LAYOUT = (OfInt) $LAYOUT.select(groupElement("cq_entries"));

    public static final OfInt cq_entries$layout() {
        return cq_entries$LAYOUT;
    }

    private static final long cq_entries$OFFSET = $LAYOUT.byteOffset(groupElement("cq_entries"));

    public static final long cq_entries$offset() {
        return cq_entries$OFFSET;
    }

    public static int cq_entries(MemorySegment struct) {
        return struct.get(cq_entries$LAYOUT, cq_entries$OFFSET);
    }

    public static void cq_entries(MemorySegment struct, int fieldValue) {
        struct.set(cq_entries$LAYOUT, cq_entries$OFFSET, fieldValue);
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

    private static final OfInt sq_thread_cpu$LAYOUT = (OfInt) $LAYOUT.select(groupElement("sq_thread_cpu"));

    public static final OfInt sq_thread_cpu$layout() {
        return sq_thread_cpu$LAYOUT;
    }

    private static final long sq_thread_cpu$OFFSET = $LAYOUT.byteOffset(groupElement("sq_thread_cpu"));

    public static final long sq_thread_cpu$offset() {
        return sq_thread_cpu$OFFSET;
    }

    public static int sq_thread_cpu(MemorySegment struct) {
        return struct.get(sq_thread_cpu$LAYOUT, sq_thread_cpu$OFFSET);
    }

    public static void sq_thread_cpu(MemorySegment struct, int fieldValue) {
        struct.set(sq_thread_cpu$LAYOUT, sq_thread_cpu$OFFSET, fieldValue);
    }

    private static final OfInt sq_thread_idle$LAYOUT = (OfInt) $LAYOUT.select(groupElement("sq_thread_idle"));

    public static final OfInt sq_thread_idle$layout() {
        return sq_thread_idle$LAYOUT;
    }

    private static final long sq_thread_idle$OFFSET = $LAYOUT.byteOffset(groupElement("sq_thread_idle"));

    public static final long sq_thread_idle$offset() {
        return sq_thread_idle$OFFSET;
    }

    public static int sq_thread_idle(MemorySegment struct) {
        return struct.get(sq_thread_idle$LAYOUT, sq_thread_idle$OFFSET);
    }

    public static void sq_thread_idle(MemorySegment struct, int fieldValue) {
        struct.set(sq_thread_idle$LAYOUT, sq_thread_idle$OFFSET, fieldValue);
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

    private static final OfInt wq_fd$LAYOUT = (OfInt) $LAYOUT.select(groupElement("wq_fd"));

    public static final OfInt wq_fd$layout() {
        return wq_fd$LAYOUT;
    }

    private static final long wq_fd$OFFSET = $LAYOUT.byteOffset(groupElement("wq_fd"));

    public static final long wq_fd$offset() {
        return wq_fd$OFFSET;
    }

    public static int wq_fd(MemorySegment struct) {
        return struct.get(wq_fd$LAYOUT, wq_fd$OFFSET);
    }

    public static void wq_fd(MemorySegment struct, int fieldValue) {
        struct.set(wq_fd$LAYOUT, wq_fd$OFFSET, fieldValue);
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

    public static int resv(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_INT, resv$OFFSET + index0 * LibUring.C_INT.byteSize());
    }

    public static void resv(MemorySegment struct, long index0, int fieldValue) {
        struct.set(LibUring.C_INT, resv$OFFSET + index0 * LibUring.C_INT.byteSize(), fieldValue);
    }

    private static final GroupLayout sq_off$LAYOUT = (GroupLayout) $LAYOUT.select(groupElement("sq_off"));

    public static final GroupLayout sq_off$layout() {
        return sq_off$LAYOUT;
    }

    private static final long sq_off$OFFSET = $LAYOUT.byteOffset(groupElement("sq_off"));

    public static final long sq_off$offset() {
        return sq_off$OFFSET;
    }

    public static MemorySegment sq_off(MemorySegment struct) {
        return struct.asSlice(sq_off$OFFSET, sq_off$LAYOUT.byteSize());
    }

    public static void sq_off(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, sq_off$OFFSET, sq_off$LAYOUT.byteSize());
    }

    private static final GroupLayout cq_off$LAYOUT = (GroupLayout) $LAYOUT.select(groupElement("cq_off"));

    public static final GroupLayout cq_off$layout() {
        return cq_off$LAYOUT;
    }

    private static final long cq_off$OFFSET = $LAYOUT.byteOffset(groupElement("cq_off"));

    public static final long cq_off$offset() {
        return cq_off$OFFSET;
    }

    public static MemorySegment cq_off(MemorySegment struct) {
        return struct.asSlice(cq_off$OFFSET, cq_off$LAYOUT.byteSize());
    }

    public static void cq_off(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, cq_off$OFFSET, cq_off$LAYOUT.byteSize());
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
