// Hand-written in the shape jextract generates (jextract cannot be installed on our machines);
// regenerate with scripts/jextract-liburing.sh where it is. Checked against the C headers by
// StructLayoutTest (gcc + liburing-dev).
package dev.spindle.iouring.ffi;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.AddressLayout;
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
 * struct io_uring_sq {
 *     unsigned *khead;
 *     unsigned *ktail;
 *     unsigned *kring_mask;
 *     unsigned *kring_entries;
 *     unsigned *kflags;
 *     unsigned *kdropped;
 *     unsigned *array;
 *     struct io_uring_sqe *sqes;
 *     unsigned sqe_head;
 *     unsigned sqe_tail;
 *     size_t ring_sz;
 *     void *ring_ptr;
 *     unsigned ring_mask;
 *     unsigned ring_entries;
 *     unsigned pad[2];
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_sq {

    io_uring_sq() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_POINTER.withName("khead"),
        LibUring.C_POINTER.withName("ktail"),
        LibUring.C_POINTER.withName("kring_mask"),
        LibUring.C_POINTER.withName("kring_entries"),
        LibUring.C_POINTER.withName("kflags"),
        LibUring.C_POINTER.withName("kdropped"),
        LibUring.C_POINTER.withName("array"),
        LibUring.C_POINTER.withName("sqes"),
        LibUring.C_INT.withName("sqe_head"),
        LibUring.C_INT.withName("sqe_tail"),
        LibUring.C_LONG.withName("ring_sz"),
        LibUring.C_POINTER.withName("ring_ptr"),
        LibUring.C_INT.withName("ring_mask"),
        LibUring.C_INT.withName("ring_entries"),
        MemoryLayout.sequenceLayout(2, LibUring.C_INT).withName("pad")
    ).withName("io_uring_sq");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final AddressLayout khead$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("khead"));

    public static final AddressLayout khead$layout() {
        return khead$LAYOUT;
    }

    private static final long khead$OFFSET = $LAYOUT.byteOffset(groupElement("khead"));

    public static final long khead$offset() {
        return khead$OFFSET;
    }

    public static MemorySegment khead(MemorySegment struct) {
        return struct.get(khead$LAYOUT, khead$OFFSET);
    }

    public static void khead(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(khead$LAYOUT, khead$OFFSET, fieldValue);
    }

    private static final AddressLayout ktail$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("ktail"));

    public static final AddressLayout ktail$layout() {
        return ktail$LAYOUT;
    }

    private static final long ktail$OFFSET = $LAYOUT.byteOffset(groupElement("ktail"));

    public static final long ktail$offset() {
        return ktail$OFFSET;
    }

    public static MemorySegment ktail(MemorySegment struct) {
        return struct.get(ktail$LAYOUT, ktail$OFFSET);
    }

    public static void ktail(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(ktail$LAYOUT, ktail$OFFSET, fieldValue);
    }

    private static final AddressLayout kring_mask$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("kring_mask"));

    public static final AddressLayout kring_mask$layout() {
        return kring_mask$LAYOUT;
    }

    private static final long kring_mask$OFFSET = $LAYOUT.byteOffset(groupElement("kring_mask"));

    public static final long kring_mask$offset() {
        return kring_mask$OFFSET;
    }

    public static MemorySegment kring_mask(MemorySegment struct) {
        return struct.get(kring_mask$LAYOUT, kring_mask$OFFSET);
    }

    public static void kring_mask(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(kring_mask$LAYOUT, kring_mask$OFFSET, fieldValue);
    }

    private static final AddressLayout kring_entries$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("kring_entries"));

    public static final AddressLayout kring_entries$layout() {
        return kring_entries$LAYOUT;
    }

    private static final long kring_entries$OFFSET = $LAYOUT.byteOffset(groupElement("kring_entries"));

    public static final long kring_entries$offset() {
        return kring_entries$OFFSET;
    }

    public static MemorySegment kring_entries(MemorySegment struct) {
        return struct.get(kring_entries$LAYOUT, kring_entries$OFFSET);
    }

    public static void kring_entries(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(kring_entries$LAYOUT, kring_entries$OFFSET, fieldValue);
    }

    private static final AddressLayout kflags$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("kflags"));

    public static final AddressLayout kflags$layout() {
        return kflags$LAYOUT;
    }

    private static final long kflags$OFFSET = $LAYOUT.byteOffset(groupElement("kflags"));

    public static final long kflags$offset() {
        return kflags$OFFSET;
    }

    public static MemorySegment kflags(MemorySegment struct) {
        return struct.get(kflags$LAYOUT, kflags$OFFSET);
    }

    public static void kflags(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(kflags$LAYOUT, kflags$OFFSET, fieldValue);
    }

    private static final AddressLayout kdropped$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("kdropped"));

    public static final AddressLayout kdropped$layout() {
        return kdropped$LAYOUT;
    }

    private static final long kdropped$OFFSET = $LAYOUT.byteOffset(groupElement("kdropped"));

    public static final long kdropped$offset() {
        return kdropped$OFFSET;
    }

    public static MemorySegment kdropped(MemorySegment struct) {
        return struct.get(kdropped$LAYOUT, kdropped$OFFSET);
    }

    public static void kdropped(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(kdropped$LAYOUT, kdropped$OFFSET, fieldValue);
    }

    private static final AddressLayout array$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("array"));

    public static final AddressLayout array$layout() {
        return array$LAYOUT;
    }

    private static final long array$OFFSET = $LAYOUT.byteOffset(groupElement("array"));

    public static final long array$offset() {
        return array$OFFSET;
    }

    public static MemorySegment array(MemorySegment struct) {
        return struct.get(array$LAYOUT, array$OFFSET);
    }

    public static void array(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(array$LAYOUT, array$OFFSET, fieldValue);
    }

    private static final AddressLayout sqes$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("sqes"));

    public static final AddressLayout sqes$layout() {
        return sqes$LAYOUT;
    }

    private static final long sqes$OFFSET = $LAYOUT.byteOffset(groupElement("sqes"));

    public static final long sqes$offset() {
        return sqes$OFFSET;
    }

    public static MemorySegment sqes(MemorySegment struct) {
        return struct.get(sqes$LAYOUT, sqes$OFFSET);
    }

    public static void sqes(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(sqes$LAYOUT, sqes$OFFSET, fieldValue);
    }

    private static final OfInt sqe_head$LAYOUT = (OfInt) $LAYOUT.select(groupElement("sqe_head"));

    public static final OfInt sqe_head$layout() {
        return sqe_head$LAYOUT;
    }

    private static final long sqe_head$OFFSET = $LAYOUT.byteOffset(groupElement("sqe_head"));

    public static final long sqe_head$offset() {
        return sqe_head$OFFSET;
    }

    public static int sqe_head(MemorySegment struct) {
        return struct.get(sqe_head$LAYOUT, sqe_head$OFFSET);
    }

    public static void sqe_head(MemorySegment struct, int fieldValue) {
        struct.set(sqe_head$LAYOUT, sqe_head$OFFSET, fieldValue);
    }

    private static final OfInt sqe_tail$LAYOUT = (OfInt) $LAYOUT.select(groupElement("sqe_tail"));

    public static final OfInt sqe_tail$layout() {
        return sqe_tail$LAYOUT;
    }

    private static final long sqe_tail$OFFSET = $LAYOUT.byteOffset(groupElement("sqe_tail"));

    public static final long sqe_tail$offset() {
        return sqe_tail$OFFSET;
    }

    public static int sqe_tail(MemorySegment struct) {
        return struct.get(sqe_tail$LAYOUT, sqe_tail$OFFSET);
    }

    public static void sqe_tail(MemorySegment struct, int fieldValue) {
        struct.set(sqe_tail$LAYOUT, sqe_tail$OFFSET, fieldValue);
    }

    private static final OfLong ring_sz$LAYOUT = (OfLong) $LAYOUT.select(groupElement("ring_sz"));

    public static final OfLong ring_sz$layout() {
        return ring_sz$LAYOUT;
    }

    private static final long ring_sz$OFFSET = $LAYOUT.byteOffset(groupElement("ring_sz"));

    public static final long ring_sz$offset() {
        return ring_sz$OFFSET;
    }

    public static long ring_sz(MemorySegment struct) {
        return struct.get(ring_sz$LAYOUT, ring_sz$OFFSET);
    }

    public static void ring_sz(MemorySegment struct, long fieldValue) {
        struct.set(ring_sz$LAYOUT, ring_sz$OFFSET, fieldValue);
    }

    private static final AddressLayout ring_ptr$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("ring_ptr"));

    public static final AddressLayout ring_ptr$layout() {
        return ring_ptr$LAYOUT;
    }

    private static final long ring_ptr$OFFSET = $LAYOUT.byteOffset(groupElement("ring_ptr"));

    public static final long ring_ptr$offset() {
        return ring_ptr$OFFSET;
    }

    public static MemorySegment ring_ptr(MemorySegment struct) {
        return struct.get(ring_ptr$LAYOUT, ring_ptr$OFFSET);
    }

    public static void ring_ptr(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(ring_ptr$LAYOUT, ring_ptr$OFFSET, fieldValue);
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

    public static int pad(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_INT, pad$OFFSET + index0 * LibUring.C_INT.byteSize());
    }

    public static void pad(MemorySegment struct, long index0, int fieldValue) {
        struct.set(LibUring.C_INT, pad$OFFSET + index0 * LibUring.C_INT.byteSize(), fieldValue);
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
