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
import java.lang.foreign.ValueLayout.OfShort;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct sockaddr_in {
 *     sa_family_t sin_family;
 *     in_port_t sin_port;
 *     struct in_addr sin_addr;
 *     unsigned char sin_zero[8];
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class sockaddr_in {

    sockaddr_in() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        Libc.C_SHORT.withName("sin_family"),
        Libc.C_SHORT.withName("sin_port"),
        in_addr.layout().withName("sin_addr"),
        MemoryLayout.sequenceLayout(8, Libc.C_CHAR).withName("sin_zero")
    ).withName("sockaddr_in");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfShort sin_family$LAYOUT = (OfShort) $LAYOUT.select(groupElement("sin_family"));

    public static final OfShort sin_family$layout() {
        return sin_family$LAYOUT;
    }

    private static final long sin_family$OFFSET = $LAYOUT.byteOffset(groupElement("sin_family"));

    public static final long sin_family$offset() {
        return sin_family$OFFSET;
    }

    public static short sin_family(MemorySegment struct) {
        return struct.get(sin_family$LAYOUT, sin_family$OFFSET);
    }

    public static void sin_family(MemorySegment struct, short fieldValue) {
        struct.set(sin_family$LAYOUT, sin_family$OFFSET, fieldValue);
    }

    private static final OfShort sin_port$LAYOUT = (OfShort) $LAYOUT.select(groupElement("sin_port"));

    public static final OfShort sin_port$layout() {
        return sin_port$LAYOUT;
    }

    private static final long sin_port$OFFSET = $LAYOUT.byteOffset(groupElement("sin_port"));

    public static final long sin_port$offset() {
        return sin_port$OFFSET;
    }

    public static short sin_port(MemorySegment struct) {
        return struct.get(sin_port$LAYOUT, sin_port$OFFSET);
    }

    public static void sin_port(MemorySegment struct, short fieldValue) {
        struct.set(sin_port$LAYOUT, sin_port$OFFSET, fieldValue);
    }

    private static final GroupLayout sin_addr$LAYOUT = (GroupLayout) $LAYOUT.select(groupElement("sin_addr"));

    public static final GroupLayout sin_addr$layout() {
        return sin_addr$LAYOUT;
    }

    private static final long sin_addr$OFFSET = $LAYOUT.byteOffset(groupElement("sin_addr"));

    public static final long sin_addr$offset() {
        return sin_addr$OFFSET;
    }

    public static MemorySegment sin_addr(MemorySegment struct) {
        return struct.asSlice(sin_addr$OFFSET, sin_addr$LAYOUT.byteSize());
    }

    public static void sin_addr(MemorySegment struct, MemorySegment fieldValue) {
        MemorySegment.copy(fieldValue, 0L, struct, sin_addr$OFFSET, sin_addr$LAYOUT.byteSize());
    }

    private static final SequenceLayout sin_zero$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("sin_zero"));

    public static final SequenceLayout sin_zero$layout() {
        return sin_zero$LAYOUT;
    }

    private static final long sin_zero$OFFSET = $LAYOUT.byteOffset(groupElement("sin_zero"));

    public static final long sin_zero$offset() {
        return sin_zero$OFFSET;
    }

    public static MemorySegment sin_zero(MemorySegment struct) {
        return struct.asSlice(sin_zero$OFFSET, sin_zero$LAYOUT.byteSize());
    }

    public static byte sin_zero(MemorySegment struct, long index0) {
        return struct.get(Libc.C_CHAR, sin_zero$OFFSET + index0 * Libc.C_CHAR.byteSize());
    }

    public static void sin_zero(MemorySegment struct, long index0, byte fieldValue) {
        struct.set(Libc.C_CHAR, sin_zero$OFFSET + index0 * Libc.C_CHAR.byteSize(), fieldValue);
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
