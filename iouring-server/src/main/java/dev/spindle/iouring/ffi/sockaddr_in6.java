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
import java.lang.foreign.ValueLayout.OfShort;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct sockaddr_in6 {
 *     sa_family_t sin6_family;
 *     in_port_t sin6_port;
 *     uint32_t sin6_flowinfo;
 *     struct in6_addr sin6_addr;
 *     uint32_t sin6_scope_id;
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class sockaddr_in6 {

    sockaddr_in6() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        Libc.C_SHORT.withName("sin6_family"),
        Libc.C_SHORT.withName("sin6_port"),
        Libc.C_INT.withName("sin6_flowinfo"),
        MemoryLayout.sequenceLayout(16, Libc.C_CHAR).withName("sin6_addr"),
        Libc.C_INT.withName("sin6_scope_id")
    ).withName("sockaddr_in6");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfShort sin6_family$LAYOUT = (OfShort) $LAYOUT.select(groupElement("sin6_family"));

    public static final OfShort sin6_family$layout() {
        return sin6_family$LAYOUT;
    }

    private static final long sin6_family$OFFSET = $LAYOUT.byteOffset(groupElement("sin6_family"));

    public static final long sin6_family$offset() {
        return sin6_family$OFFSET;
    }

    public static short sin6_family(MemorySegment struct) {
        return struct.get(sin6_family$LAYOUT, sin6_family$OFFSET);
    }

    public static void sin6_family(MemorySegment struct, short fieldValue) {
        struct.set(sin6_family$LAYOUT, sin6_family$OFFSET, fieldValue);
    }

    private static final OfShort sin6_port$LAYOUT = (OfShort) $LAYOUT.select(groupElement("sin6_port"));

    public static final OfShort sin6_port$layout() {
        return sin6_port$LAYOUT;
    }

    private static final long sin6_port$OFFSET = $LAYOUT.byteOffset(groupElement("sin6_port"));

    public static final long sin6_port$offset() {
        return sin6_port$OFFSET;
    }

    public static short sin6_port(MemorySegment struct) {
        return struct.get(sin6_port$LAYOUT, sin6_port$OFFSET);
    }

    public static void sin6_port(MemorySegment struct, short fieldValue) {
        struct.set(sin6_port$LAYOUT, sin6_port$OFFSET, fieldValue);
    }

    private static final OfInt sin6_flowinfo$LAYOUT = (OfInt) $LAYOUT.select(groupElement("sin6_flowinfo"));

    public static final OfInt sin6_flowinfo$layout() {
        return sin6_flowinfo$LAYOUT;
    }

    private static final long sin6_flowinfo$OFFSET = $LAYOUT.byteOffset(groupElement("sin6_flowinfo"));

    public static final long sin6_flowinfo$offset() {
        return sin6_flowinfo$OFFSET;
    }

    public static int sin6_flowinfo(MemorySegment struct) {
        return struct.get(sin6_flowinfo$LAYOUT, sin6_flowinfo$OFFSET);
    }

    public static void sin6_flowinfo(MemorySegment struct, int fieldValue) {
        struct.set(sin6_flowinfo$LAYOUT, sin6_flowinfo$OFFSET, fieldValue);
    }

    private static final SequenceLayout sin6_addr$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("sin6_addr"));

    public static final SequenceLayout sin6_addr$layout() {
        return sin6_addr$LAYOUT;
    }

    private static final long sin6_addr$OFFSET = $LAYOUT.byteOffset(groupElement("sin6_addr"));

    public static final long sin6_addr$offset() {
        return sin6_addr$OFFSET;
    }

    public static MemorySegment sin6_addr(MemorySegment struct) {
        return struct.asSlice(sin6_addr$OFFSET, sin6_addr$LAYOUT.byteSize());
    }

    public static byte sin6_addr(MemorySegment struct, long index0) {
        return struct.get(Libc.C_CHAR, sin6_addr$OFFSET + index0 * Libc.C_CHAR.byteSize());
    }

    public static void sin6_addr(MemorySegment struct, long index0, byte fieldValue) {
        struct.set(Libc.C_CHAR, sin6_addr$OFFSET + index0 * Libc.C_CHAR.byteSize(), fieldValue);
    }

    private static final OfInt sin6_scope_id$LAYOUT = (OfInt) $LAYOUT.select(groupElement("sin6_scope_id"));

    public static final OfInt sin6_scope_id$layout() {
        return sin6_scope_id$LAYOUT;
    }

    private static final long sin6_scope_id$OFFSET = $LAYOUT.byteOffset(groupElement("sin6_scope_id"));

    public static final long sin6_scope_id$offset() {
        return sin6_scope_id$OFFSET;
    }

    public static int sin6_scope_id(MemorySegment struct) {
        return struct.get(sin6_scope_id$LAYOUT, sin6_scope_id$OFFSET);
    }

    public static void sin6_scope_id(MemorySegment struct, int fieldValue) {
        struct.set(sin6_scope_id$LAYOUT, sin6_scope_id$OFFSET, fieldValue);
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
