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
import java.lang.foreign.ValueLayout.OfLong;
import java.lang.foreign.ValueLayout.OfShort;
import java.util.function.Consumer;

/**
 * {@snippet lang=c :
 * struct io_uring_sqe {
 *     __u8 opcode;
 *     __u8 flags;
 *     __u16 ioprio;
 *     __s32 fd;
 *     union { __u64 off; __u64 addr2; struct { __u32 cmd_op; __u32 __pad1; }; };
 *     union { __u64 addr; __u64 splice_off_in; };
 *     __u32 len;
 *     union { __kernel_rwf_t rw_flags; __u32 fsync_flags; __u16 poll_events; __u32 poll32_events; __u32 sync_range_flags;
 *             __u32 msg_flags; __u32 timeout_flags; __u32 accept_flags; __u32 cancel_flags; __u32 open_flags; __u32 statx_flags;
 *             __u32 fadvise_advice; __u32 splice_flags; __u32 rename_flags; __u32 unlink_flags; __u32 hardlink_flags;
 *             __u32 xattr_flags; __u32 msg_ring_flags; __u32 uring_cmd_flags; };
 *     __u64 user_data;
 *     union { __u16 buf_index; __u16 buf_group; } __attribute__((packed));
 *     __u16 personality;
 *     union { __s32 splice_fd_in; __u32 file_index; struct { __u16 addr_len; __u16 __pad3[1]; }; };
 *     union { struct { __u64 addr3; __u64 __pad2[1]; }; __u8 cmd[0]; };
 * }
 * }
 */
@SuppressWarnings({"unused", "checkstyle:TypeName", "restricted"})
public class io_uring_sqe {

    io_uring_sqe() {
        // Should not be called directly
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
        LibUring.C_CHAR.withName("opcode"),
        LibUring.C_CHAR.withName("flags"),
        LibUring.C_SHORT.withName("ioprio"),
        LibUring.C_INT.withName("fd"),
        MemoryLayout.unionLayout(
            LibUring.C_LONG_LONG.withName("off"),
            LibUring.C_LONG_LONG.withName("addr2"),
            MemoryLayout.structLayout(
                LibUring.C_INT.withName("cmd_op"),
                LibUring.C_INT.withName("__pad1")
            ).withName("$anon$2")
        ).withName("$anon$1"),
        MemoryLayout.unionLayout(
            LibUring.C_LONG_LONG.withName("addr"),
            LibUring.C_LONG_LONG.withName("splice_off_in")
        ).withName("$anon$3"),
        LibUring.C_INT.withName("len"),
        MemoryLayout.unionLayout(
            LibUring.C_INT.withName("rw_flags"),
            LibUring.C_INT.withName("fsync_flags"),
            LibUring.C_SHORT.withName("poll_events"),
            LibUring.C_INT.withName("poll32_events"),
            LibUring.C_INT.withName("sync_range_flags"),
            LibUring.C_INT.withName("msg_flags"),
            LibUring.C_INT.withName("timeout_flags"),
            LibUring.C_INT.withName("accept_flags"),
            LibUring.C_INT.withName("cancel_flags"),
            LibUring.C_INT.withName("open_flags"),
            LibUring.C_INT.withName("statx_flags"),
            LibUring.C_INT.withName("fadvise_advice"),
            LibUring.C_INT.withName("splice_flags"),
            LibUring.C_INT.withName("rename_flags"),
            LibUring.C_INT.withName("unlink_flags"),
            LibUring.C_INT.withName("hardlink_flags"),
            LibUring.C_INT.withName("xattr_flags"),
            LibUring.C_INT.withName("msg_ring_flags"),
            LibUring.C_INT.withName("uring_cmd_flags")
        ).withName("$anon$4"),
        LibUring.C_LONG_LONG.withName("user_data"),
        MemoryLayout.unionLayout(
            LibUring.C_SHORT.withName("buf_index"),
            LibUring.C_SHORT.withName("buf_group")
        ).withName("$anon$5"),
        LibUring.C_SHORT.withName("personality"),
        MemoryLayout.unionLayout(
            LibUring.C_INT.withName("splice_fd_in"),
            LibUring.C_INT.withName("file_index"),
            MemoryLayout.structLayout(
                LibUring.C_SHORT.withName("addr_len"),
                MemoryLayout.sequenceLayout(1, LibUring.C_SHORT).withName("__pad3")
            ).withName("$anon$7")
        ).withName("$anon$6"),
        MemoryLayout.unionLayout(
            MemoryLayout.structLayout(
                LibUring.C_LONG_LONG.withName("addr3"),
                MemoryLayout.sequenceLayout(1, LibUring.C_LONG_LONG).withName("__pad2")
            ).withName("$anon$9"),
            MemoryLayout.sequenceLayout(0, LibUring.C_CHAR).withName("cmd")
        ).withName("$anon$8")
    ).withName("io_uring_sqe");

    /** The layout of this struct. */
    public static final GroupLayout layout() {
        return $LAYOUT;
    }

    private static final OfByte opcode$LAYOUT = (OfByte) $LAYOUT.select(groupElement("opcode"));

    public static final OfByte opcode$layout() {
        return opcode$LAYOUT;
    }

    private static final long opcode$OFFSET = $LAYOUT.byteOffset(groupElement("opcode"));

    public static final long opcode$offset() {
        return opcode$OFFSET;
    }

    public static byte opcode(MemorySegment struct) {
        return struct.get(opcode$LAYOUT, opcode$OFFSET);
    }

    public static void opcode(MemorySegment struct, byte fieldValue) {
        struct.set(opcode$LAYOUT, opcode$OFFSET, fieldValue);
    }

    private static final OfByte flags$LAYOUT = (OfByte) $LAYOUT.select(groupElement("flags"));

    public static final OfByte flags$layout() {
        return flags$LAYOUT;
    }

    private static final long flags$OFFSET = $LAYOUT.byteOffset(groupElement("flags"));

    public static final long flags$offset() {
        return flags$OFFSET;
    }

    public static byte flags(MemorySegment struct) {
        return struct.get(flags$LAYOUT, flags$OFFSET);
    }

    public static void flags(MemorySegment struct, byte fieldValue) {
        struct.set(flags$LAYOUT, flags$OFFSET, fieldValue);
    }

    private static final OfShort ioprio$LAYOUT = (OfShort) $LAYOUT.select(groupElement("ioprio"));

    public static final OfShort ioprio$layout() {
        return ioprio$LAYOUT;
    }

    private static final long ioprio$OFFSET = $LAYOUT.byteOffset(groupElement("ioprio"));

    public static final long ioprio$offset() {
        return ioprio$OFFSET;
    }

    public static short ioprio(MemorySegment struct) {
        return struct.get(ioprio$LAYOUT, ioprio$OFFSET);
    }

    public static void ioprio(MemorySegment struct, short fieldValue) {
        struct.set(ioprio$LAYOUT, ioprio$OFFSET, fieldValue);
    }

    private static final OfInt fd$LAYOUT = (OfInt) $LAYOUT.select(groupElement("fd"));

    public static final OfInt fd$layout() {
        return fd$LAYOUT;
    }

    private static final long fd$OFFSET = $LAYOUT.byteOffset(groupElement("fd"));

    public static final long fd$offset() {
        return fd$OFFSET;
    }

    public static int fd(MemorySegment struct) {
        return struct.get(fd$LAYOUT, fd$OFFSET);
    }

    public static void fd(MemorySegment struct, int fieldValue) {
        struct.set(fd$LAYOUT, fd$OFFSET, fieldValue);
    }

    private static final OfLong off$LAYOUT = (OfLong) $LAYOUT.select(groupElement("$anon$1"), groupElement("off"));

    public static final OfLong off$layout() {
        return off$LAYOUT;
    }

    private static final long off$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("off"));

    public static final long off$offset() {
        return off$OFFSET;
    }

    public static long off(MemorySegment struct) {
        return struct.get(off$LAYOUT, off$OFFSET);
    }

    public static void off(MemorySegment struct, long fieldValue) {
        struct.set(off$LAYOUT, off$OFFSET, fieldValue);
    }

    private static final OfLong addr2$LAYOUT = (OfLong) $LAYOUT.select(groupElement("$anon$1"), groupElement("addr2"));

    public static final OfLong addr2$layout() {
        return addr2$LAYOUT;
    }

    private static final long addr2$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("addr2"));

    public static final long addr2$offset() {
        return addr2$OFFSET;
    }

    public static long addr2(MemorySegment struct) {
        return struct.get(addr2$LAYOUT, addr2$OFFSET);
    }

    public static void addr2(MemorySegment struct, long fieldValue) {
        struct.set(addr2$LAYOUT, addr2$OFFSET, fieldValue);
    }

    private static final OfInt cmd_op$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("cmd_op"));

    public static final OfInt cmd_op$layout() {
        return cmd_op$LAYOUT;
    }

    private static final long cmd_op$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("cmd_op"));

    public static final long cmd_op$offset() {
        return cmd_op$OFFSET;
    }

    public static int cmd_op(MemorySegment struct) {
        return struct.get(cmd_op$LAYOUT, cmd_op$OFFSET);
    }

    public static void cmd_op(MemorySegment struct, int fieldValue) {
        struct.set(cmd_op$LAYOUT, cmd_op$OFFSET, fieldValue);
    }

    private static final OfInt __pad1$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("__pad1"));

    public static final OfInt __pad1$layout() {
        return __pad1$LAYOUT;
    }

    private static final long __pad1$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$1"), groupElement("$anon$2"), groupElement("__pad1"));

    public static final long __pad1$offset() {
        return __pad1$OFFSET;
    }

    public static int __pad1(MemorySegment struct) {
        return struct.get(__pad1$LAYOUT, __pad1$OFFSET);
    }

    public static void __pad1(MemorySegment struct, int fieldValue) {
        struct.set(__pad1$LAYOUT, __pad1$OFFSET, fieldValue);
    }

    private static final OfLong addr$LAYOUT = (OfLong) $LAYOUT.select(groupElement("$anon$3"), groupElement("addr"));

    public static final OfLong addr$layout() {
        return addr$LAYOUT;
    }

    private static final long addr$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$3"), groupElement("addr"));

    public static final long addr$offset() {
        return addr$OFFSET;
    }

    public static long addr(MemorySegment struct) {
        return struct.get(addr$LAYOUT, addr$OFFSET);
    }

    public static void addr(MemorySegment struct, long fieldValue) {
        struct.set(addr$LAYOUT, addr$OFFSET, fieldValue);
    }

    private static final OfLong splice_off_in$LAYOUT = (OfLong) $LAYOUT.select(groupElement("$anon$3"), groupElement("splice_off_in"));

    public static final OfLong splice_off_in$layout() {
        return splice_off_in$LAYOUT;
    }

    private static final long splice_off_in$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$3"), groupElement("splice_off_in"));

    public static final long splice_off_in$offset() {
        return splice_off_in$OFFSET;
    }

    public static long splice_off_in(MemorySegment struct) {
        return struct.get(splice_off_in$LAYOUT, splice_off_in$OFFSET);
    }

    public static void splice_off_in(MemorySegment struct, long fieldValue) {
        struct.set(splice_off_in$LAYOUT, splice_off_in$OFFSET, fieldValue);
    }

    private static final OfInt len$LAYOUT = (OfInt) $LAYOUT.select(groupElement("len"));

    public static final OfInt len$layout() {
        return len$LAYOUT;
    }

    private static final long len$OFFSET = $LAYOUT.byteOffset(groupElement("len"));

    public static final long len$offset() {
        return len$OFFSET;
    }

    public static int len(MemorySegment struct) {
        return struct.get(len$LAYOUT, len$OFFSET);
    }

    public static void len(MemorySegment struct, int fieldValue) {
        struct.set(len$LAYOUT, len$OFFSET, fieldValue);
    }

    private static final OfInt rw_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("rw_flags"));

    public static final OfInt rw_flags$layout() {
        return rw_flags$LAYOUT;
    }

    private static final long rw_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("rw_flags"));

    public static final long rw_flags$offset() {
        return rw_flags$OFFSET;
    }

    public static int rw_flags(MemorySegment struct) {
        return struct.get(rw_flags$LAYOUT, rw_flags$OFFSET);
    }

    public static void rw_flags(MemorySegment struct, int fieldValue) {
        struct.set(rw_flags$LAYOUT, rw_flags$OFFSET, fieldValue);
    }

    private static final OfInt fsync_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("fsync_flags"));

    public static final OfInt fsync_flags$layout() {
        return fsync_flags$LAYOUT;
    }

    private static final long fsync_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("fsync_flags"));

    public static final long fsync_flags$offset() {
        return fsync_flags$OFFSET;
    }

    public static int fsync_flags(MemorySegment struct) {
        return struct.get(fsync_flags$LAYOUT, fsync_flags$OFFSET);
    }

    public static void fsync_flags(MemorySegment struct, int fieldValue) {
        struct.set(fsync_flags$LAYOUT, fsync_flags$OFFSET, fieldValue);
    }

    private static final OfShort poll_events$LAYOUT = (OfShort) $LAYOUT.select(groupElement("$anon$4"), groupElement("poll_events"));

    public static final OfShort poll_events$layout() {
        return poll_events$LAYOUT;
    }

    private static final long poll_events$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("poll_events"));

    public static final long poll_events$offset() {
        return poll_events$OFFSET;
    }

    public static short poll_events(MemorySegment struct) {
        return struct.get(poll_events$LAYOUT, poll_events$OFFSET);
    }

    public static void poll_events(MemorySegment struct, short fieldValue) {
        struct.set(poll_events$LAYOUT, poll_events$OFFSET, fieldValue);
    }

    private static final OfInt poll32_events$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("poll32_events"));

    public static final OfInt poll32_events$layout() {
        return poll32_events$LAYOUT;
    }

    private static final long poll32_events$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("poll32_events"));

    public static final long poll32_events$offset() {
        return poll32_events$OFFSET;
    }

    public static int poll32_events(MemorySegment struct) {
        return struct.get(poll32_events$LAYOUT, poll32_events$OFFSET);
    }

    public static void poll32_events(MemorySegment struct, int fieldValue) {
        struct.set(poll32_events$LAYOUT, poll32_events$OFFSET, fieldValue);
    }

    private static final OfInt sync_range_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("sync_range_flags"));

    public static final OfInt sync_range_flags$layout() {
        return sync_range_flags$LAYOUT;
    }

    private static final long sync_range_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("sync_range_flags"));

    public static final long sync_range_flags$offset() {
        return sync_range_flags$OFFSET;
    }

    public static int sync_range_flags(MemorySegment struct) {
        return struct.get(sync_range_flags$LAYOUT, sync_range_flags$OFFSET);
    }

    public static void sync_range_flags(MemorySegment struct, int fieldValue) {
        struct.set(sync_range_flags$LAYOUT, sync_range_flags$OFFSET, fieldValue);
    }

    private static final OfInt msg_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("msg_flags"));

    public static final OfInt msg_flags$layout() {
        return msg_flags$LAYOUT;
    }

    private static final long msg_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("msg_flags"));

    public static final long msg_flags$offset() {
        return msg_flags$OFFSET;
    }

    public static int msg_flags(MemorySegment struct) {
        return struct.get(msg_flags$LAYOUT, msg_flags$OFFSET);
    }

    public static void msg_flags(MemorySegment struct, int fieldValue) {
        struct.set(msg_flags$LAYOUT, msg_flags$OFFSET, fieldValue);
    }

    private static final OfInt timeout_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("timeout_flags"));

    public static final OfInt timeout_flags$layout() {
        return timeout_flags$LAYOUT;
    }

    private static final long timeout_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("timeout_flags"));

    public static final long timeout_flags$offset() {
        return timeout_flags$OFFSET;
    }

    public static int timeout_flags(MemorySegment struct) {
        return struct.get(timeout_flags$LAYOUT, timeout_flags$OFFSET);
    }

    public static void timeout_flags(MemorySegment struct, int fieldValue) {
        struct.set(timeout_flags$LAYOUT, timeout_flags$OFFSET, fieldValue);
    }

    private static final OfInt accept_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("accept_flags"));

    public static final OfInt accept_flags$layout() {
        return accept_flags$LAYOUT;
    }

    private static final long accept_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("accept_flags"));

    public static final long accept_flags$offset() {
        return accept_flags$OFFSET;
    }

    public static int accept_flags(MemorySegment struct) {
        return struct.get(accept_flags$LAYOUT, accept_flags$OFFSET);
    }

    public static void accept_flags(MemorySegment struct, int fieldValue) {
        struct.set(accept_flags$LAYOUT, accept_flags$OFFSET, fieldValue);
    }

    private static final OfInt cancel_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("cancel_flags"));

    public static final OfInt cancel_flags$layout() {
        return cancel_flags$LAYOUT;
    }

    private static final long cancel_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("cancel_flags"));

    public static final long cancel_flags$offset() {
        return cancel_flags$OFFSET;
    }

    public static int cancel_flags(MemorySegment struct) {
        return struct.get(cancel_flags$LAYOUT, cancel_flags$OFFSET);
    }

    public static void cancel_flags(MemorySegment struct, int fieldValue) {
        struct.set(cancel_flags$LAYOUT, cancel_flags$OFFSET, fieldValue);
    }

    private static final OfInt open_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("open_flags"));

    public static final OfInt open_flags$layout() {
        return open_flags$LAYOUT;
    }

    private static final long open_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("open_flags"));

    public static final long open_flags$offset() {
        return open_flags$OFFSET;
    }

    public static int open_flags(MemorySegment struct) {
        return struct.get(open_flags$LAYOUT, open_flags$OFFSET);
    }

    public static void open_flags(MemorySegment struct, int fieldValue) {
        struct.set(open_flags$LAYOUT, open_flags$OFFSET, fieldValue);
    }

    private static final OfInt statx_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("statx_flags"));

    public static final OfInt statx_flags$layout() {
        return statx_flags$LAYOUT;
    }

    private static final long statx_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("statx_flags"));

    public static final long statx_flags$offset() {
        return statx_flags$OFFSET;
    }

    public static int statx_flags(MemorySegment struct) {
        return struct.get(statx_flags$LAYOUT, statx_flags$OFFSET);
    }

    public static void statx_flags(MemorySegment struct, int fieldValue) {
        struct.set(statx_flags$LAYOUT, statx_flags$OFFSET, fieldValue);
    }

    private static final OfInt fadvise_advice$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("fadvise_advice"));

    public static final OfInt fadvise_advice$layout() {
        return fadvise_advice$LAYOUT;
    }

    private static final long fadvise_advice$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("fadvise_advice"));

    public static final long fadvise_advice$offset() {
        return fadvise_advice$OFFSET;
    }

    public static int fadvise_advice(MemorySegment struct) {
        return struct.get(fadvise_advice$LAYOUT, fadvise_advice$OFFSET);
    }

    public static void fadvise_advice(MemorySegment struct, int fieldValue) {
        struct.set(fadvise_advice$LAYOUT, fadvise_advice$OFFSET, fieldValue);
    }

    private static final OfInt splice_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("splice_flags"));

    public static final OfInt splice_flags$layout() {
        return splice_flags$LAYOUT;
    }

    private static final long splice_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("splice_flags"));

    public static final long splice_flags$offset() {
        return splice_flags$OFFSET;
    }

    public static int splice_flags(MemorySegment struct) {
        return struct.get(splice_flags$LAYOUT, splice_flags$OFFSET);
    }

    public static void splice_flags(MemorySegment struct, int fieldValue) {
        struct.set(splice_flags$LAYOUT, splice_flags$OFFSET, fieldValue);
    }

    private static final OfInt rename_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("rename_flags"));

    public static final OfInt rename_flags$layout() {
        return rename_flags$LAYOUT;
    }

    private static final long rename_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("rename_flags"));

    public static final long rename_flags$offset() {
        return rename_flags$OFFSET;
    }

    public static int rename_flags(MemorySegment struct) {
        return struct.get(rename_flags$LAYOUT, rename_flags$OFFSET);
    }

    public static void rename_flags(MemorySegment struct, int fieldValue) {
        struct.set(rename_flags$LAYOUT, rename_flags$OFFSET, fieldValue);
    }

    private static final OfInt unlink_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("unlink_flags"));

    public static final OfInt unlink_flags$layout() {
        return unlink_flags$LAYOUT;
    }

    private static final long unlink_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("unlink_flags"));

    public static final long unlink_flags$offset() {
        return unlink_flags$OFFSET;
    }

    public static int unlink_flags(MemorySegment struct) {
        return struct.get(unlink_flags$LAYOUT, unlink_flags$OFFSET);
    }

    public static void unlink_flags(MemorySegment struct, int fieldValue) {
        struct.set(unlink_flags$LAYOUT, unlink_flags$OFFSET, fieldValue);
    }

    private static final OfInt hardlink_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("hardlink_flags"));

    public static final OfInt hardlink_flags$layout() {
        return hardlink_flags$LAYOUT;
    }

    private static final long hardlink_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("hardlink_flags"));

    public static final long hardlink_flags$offset() {
        return hardlink_flags$OFFSET;
    }

    public static int hardlink_flags(MemorySegment struct) {
        return struct.get(hardlink_flags$LAYOUT, hardlink_flags$OFFSET);
    }

    public static void hardlink_flags(MemorySegment struct, int fieldValue) {
        struct.set(hardlink_flags$LAYOUT, hardlink_flags$OFFSET, fieldValue);
    }

    private static final OfInt xattr_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("xattr_flags"));

    public static final OfInt xattr_flags$layout() {
        return xattr_flags$LAYOUT;
    }

    private static final long xattr_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("xattr_flags"));

    public static final long xattr_flags$offset() {
        return xattr_flags$OFFSET;
    }

    public static int xattr_flags(MemorySegment struct) {
        return struct.get(xattr_flags$LAYOUT, xattr_flags$OFFSET);
    }

    public static void xattr_flags(MemorySegment struct, int fieldValue) {
        struct.set(xattr_flags$LAYOUT, xattr_flags$OFFSET, fieldValue);
    }

    private static final OfInt msg_ring_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("msg_ring_flags"));

    public static final OfInt msg_ring_flags$layout() {
        return msg_ring_flags$LAYOUT;
    }

    private static final long msg_ring_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("msg_ring_flags"));

    public static final long msg_ring_flags$offset() {
        return msg_ring_flags$OFFSET;
    }

    public static int msg_ring_flags(MemorySegment struct) {
        return struct.get(msg_ring_flags$LAYOUT, msg_ring_flags$OFFSET);
    }

    public static void msg_ring_flags(MemorySegment struct, int fieldValue) {
        struct.set(msg_ring_flags$LAYOUT, msg_ring_flags$OFFSET, fieldValue);
    }

    private static final OfInt uring_cmd_flags$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$4"), groupElement("uring_cmd_flags"));

    public static final OfInt uring_cmd_flags$layout() {
        return uring_cmd_flags$LAYOUT;
    }

    private static final long uring_cmd_flags$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$4"), groupElement("uring_cmd_flags"));

    public static final long uring_cmd_flags$offset() {
        return uring_cmd_flags$OFFSET;
    }

    public static int uring_cmd_flags(MemorySegment struct) {
        return struct.get(uring_cmd_flags$LAYOUT, uring_cmd_flags$OFFSET);
    }

    public static void uring_cmd_flags(MemorySegment struct, int fieldValue) {
        struct.set(uring_cmd_flags$LAYOUT, uring_cmd_flags$OFFSET, fieldValue);
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

    private static final OfShort buf_index$LAYOUT = (OfShort) $LAYOUT.select(groupElement("$anon$5"), groupElement("buf_index"));

    public static final OfShort buf_index$layout() {
        return buf_index$LAYOUT;
    }

    private static final long buf_index$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$5"), groupElement("buf_index"));

    public static final long buf_index$offset() {
        return buf_index$OFFSET;
    }

    public static short buf_index(MemorySegment struct) {
        return struct.get(buf_index$LAYOUT, buf_index$OFFSET);
    }

    public static void buf_index(MemorySegment struct, short fieldValue) {
        struct.set(buf_index$LAYOUT, buf_index$OFFSET, fieldValue);
    }

    private static final OfShort buf_group$LAYOUT = (OfShort) $LAYOUT.select(groupElement("$anon$5"), groupElement("buf_group"));

    public static final OfShort buf_group$layout() {
        return buf_group$LAYOUT;
    }

    private static final long buf_group$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$5"), groupElement("buf_group"));

    public static final long buf_group$offset() {
        return buf_group$OFFSET;
    }

    public static short buf_group(MemorySegment struct) {
        return struct.get(buf_group$LAYOUT, buf_group$OFFSET);
    }

    public static void buf_group(MemorySegment struct, short fieldValue) {
        struct.set(buf_group$LAYOUT, buf_group$OFFSET, fieldValue);
    }

    private static final OfShort personality$LAYOUT = (OfShort) $LAYOUT.select(groupElement("personality"));

    public static final OfShort personality$layout() {
        return personality$LAYOUT;
    }

    private static final long personality$OFFSET = $LAYOUT.byteOffset(groupElement("personality"));

    public static final long personality$offset() {
        return personality$OFFSET;
    }

    public static short personality(MemorySegment struct) {
        return struct.get(personality$LAYOUT, personality$OFFSET);
    }

    public static void personality(MemorySegment struct, short fieldValue) {
        struct.set(personality$LAYOUT, personality$OFFSET, fieldValue);
    }

    private static final OfInt splice_fd_in$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$6"), groupElement("splice_fd_in"));

    public static final OfInt splice_fd_in$layout() {
        return splice_fd_in$LAYOUT;
    }

    private static final long splice_fd_in$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$6"), groupElement("splice_fd_in"));

    public static final long splice_fd_in$offset() {
        return splice_fd_in$OFFSET;
    }

    public static int splice_fd_in(MemorySegment struct) {
        return struct.get(splice_fd_in$LAYOUT, splice_fd_in$OFFSET);
    }

    public static void splice_fd_in(MemorySegment struct, int fieldValue) {
        struct.set(splice_fd_in$LAYOUT, splice_fd_in$OFFSET, fieldValue);
    }

    private static final OfInt file_index$LAYOUT = (OfInt) $LAYOUT.select(groupElement("$anon$6"), groupElement("file_index"));

    public static final OfInt file_index$layout() {
        return file_index$LAYOUT;
    }

    private static final long file_index$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$6"), groupElement("file_index"));

    public static final long file_index$offset() {
        return file_index$OFFSET;
    }

    public static int file_index(MemorySegment struct) {
        return struct.get(file_index$LAYOUT, file_index$OFFSET);
    }

    public static void file_index(MemorySegment struct, int fieldValue) {
        struct.set(file_index$LAYOUT, file_index$OFFSET, fieldValue);
    }

    private static final OfShort addr_len$LAYOUT = (OfShort) $LAYOUT.select(groupElement("$anon$6"), groupElement("$anon$7"), groupElement("addr_len"));

    public static final OfShort addr_len$layout() {
        return addr_len$LAYOUT;
    }

    private static final long addr_len$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$6"), groupElement("$anon$7"), groupElement("addr_len"));

    public static final long addr_len$offset() {
        return addr_len$OFFSET;
    }

    public static short addr_len(MemorySegment struct) {
        return struct.get(addr_len$LAYOUT, addr_len$OFFSET);
    }

    public static void addr_len(MemorySegment struct, short fieldValue) {
        struct.set(addr_len$LAYOUT, addr_len$OFFSET, fieldValue);
    }

    private static final SequenceLayout __pad3$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("$anon$6"), groupElement("$anon$7"), groupElement("__pad3"));

    public static final SequenceLayout __pad3$layout() {
        return __pad3$LAYOUT;
    }

    private static final long __pad3$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$6"), groupElement("$anon$7"), groupElement("__pad3"));

    public static final long __pad3$offset() {
        return __pad3$OFFSET;
    }

    public static MemorySegment __pad3(MemorySegment struct) {
        return struct.asSlice(__pad3$OFFSET, __pad3$LAYOUT.byteSize());
    }

    public static short __pad3(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_SHORT, __pad3$OFFSET + index0 * LibUring.C_SHORT.byteSize());
    }

    public static void __pad3(MemorySegment struct, long index0, short fieldValue) {
        struct.set(LibUring.C_SHORT, __pad3$OFFSET + index0 * LibUring.C_SHORT.byteSize(), fieldValue);
    }

    private static final OfLong addr3$LAYOUT = (OfLong) $LAYOUT.select(groupElement("$anon$8"), groupElement("$anon$9"), groupElement("addr3"));

    public static final OfLong addr3$layout() {
        return addr3$LAYOUT;
    }

    private static final long addr3$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$8"), groupElement("$anon$9"), groupElement("addr3"));

    public static final long addr3$offset() {
        return addr3$OFFSET;
    }

    public static long addr3(MemorySegment struct) {
        return struct.get(addr3$LAYOUT, addr3$OFFSET);
    }

    public static void addr3(MemorySegment struct, long fieldValue) {
        struct.set(addr3$LAYOUT, addr3$OFFSET, fieldValue);
    }

    private static final SequenceLayout __pad2$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("$anon$8"), groupElement("$anon$9"), groupElement("__pad2"));

    public static final SequenceLayout __pad2$layout() {
        return __pad2$LAYOUT;
    }

    private static final long __pad2$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$8"), groupElement("$anon$9"), groupElement("__pad2"));

    public static final long __pad2$offset() {
        return __pad2$OFFSET;
    }

    public static MemorySegment __pad2(MemorySegment struct) {
        return struct.asSlice(__pad2$OFFSET, __pad2$LAYOUT.byteSize());
    }

    public static long __pad2(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_LONG_LONG, __pad2$OFFSET + index0 * LibUring.C_LONG_LONG.byteSize());
    }

    public static void __pad2(MemorySegment struct, long index0, long fieldValue) {
        struct.set(LibUring.C_LONG_LONG, __pad2$OFFSET + index0 * LibUring.C_LONG_LONG.byteSize(), fieldValue);
    }

    private static final SequenceLayout cmd$LAYOUT = (SequenceLayout) $LAYOUT.select(groupElement("$anon$8"), groupElement("cmd"));

    public static final SequenceLayout cmd$layout() {
        return cmd$LAYOUT;
    }

    private static final long cmd$OFFSET = $LAYOUT.byteOffset(groupElement("$anon$8"), groupElement("cmd"));

    public static final long cmd$offset() {
        return cmd$OFFSET;
    }

    public static MemorySegment cmd(MemorySegment struct) {
        return struct.asSlice(cmd$OFFSET, cmd$LAYOUT.byteSize());
    }

    public static byte cmd(MemorySegment struct, long index0) {
        return struct.get(LibUring.C_CHAR, cmd$OFFSET + index0 * LibUring.C_CHAR.byteSize());
    }

    public static void cmd(MemorySegment struct, long index0, byte fieldValue) {
        struct.set(LibUring.C_CHAR, cmd$OFFSET + index0 * LibUring.C_CHAR.byteSize(), fieldValue);
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
