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
 * struct io_uring_cq {
 *     unsigned *khead;
 *     unsigned *ktail;
 *     unsigned *kring_mask;
 *     unsigned *kring_entries;
 *     unsigned *kflags;
 *     unsigned *koverflow;
 *     struct io_uring_cqe *cqes;
 *     size_t ring_sz;
 *     void *ring_ptr;
 *     unsigned ring_mask;
 *     unsigned ring_entries;
 *     unsigned pad[2];
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_cq {

    io_uring_cq() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_POINTER.withName("khead"),
        LibUring.C_POINTER.withName("ktail"),
        LibUring.C_POINTER.withName("kring_mask"),
        LibUring.C_POINTER.withName("kring_entries"),
        LibUring.C_POINTER.withName("kflags"),
        LibUring.C_POINTER.withName("koverflow"),
        LibUring.C_POINTER.withName("cqes"),
        LibUring.C_LONG.withName("ring_sz"),
        LibUring.C_POINTER.withName("ring_ptr"),
        LibUring.C_INT.withName("ring_mask"),
        LibUring.C_INT.withName("ring_entries"),
        MemoryLayout.sequenceLayout(2, LibUring.C_INT).withName("pad")
    ).withName("io_uring_cq");

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

    private static final AddressLayout koverflow$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("koverflow"));

    public static final AddressLayout koverflow$layout() {
        return koverflow$LAYOUT;
    }

    private static final long koverflow$OFFSET = $LAYOUT.byteOffset(groupElement("koverflow"));

    public static final long koverflow$offset() {
        return koverflow$OFFSET;
    }

    public static MemorySegment koverflow(MemorySegment struct) {
        return struct.get(koverflow$LAYOUT, koverflow$OFFSET);
    }

    public static void koverflow(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(koverflow$LAYOUT, koverflow$OFFSET, fieldValue);
    }

    private static final AddressLayout cqes$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("cqes"));

    public static final AddressLayout cqes$layout() {
        return cqes$LAYOUT;
    }

    private static final long cqes$OFFSET = $LAYOUT.byteOffset(groupElement("cqes"));

    public static final long cqes$offset() {
        return cqes$OFFSET;
    }

    public static MemorySegment cqes(MemorySegment struct) {
        return struct.get(cqes$LAYOUT, cqes$OFFSET);
    }

    public static void cqes(MemorySegment struct, MemorySegment fieldValue) {
        struct.set(cqes$LAYOUT, cqes$OFFSET, fieldValue);
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
