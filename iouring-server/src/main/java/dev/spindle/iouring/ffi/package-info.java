/**
 * FFM bindings to liburing 2.3 ({@code liburing.so.2}) and the few libc calls the io_uring server
 * needs, hand-written in the shape jextract generates (jextract cannot be installed on our
 * machines; {@code scripts/jextract-liburing.sh} regenerates them where it is): header classes
 * ({@link dev.spindle.iouring.ffi.LibUring}, {@link dev.spindle.iouring.ffi.Libc}) whose static
 * methods call cached downcall handles and whose constants are static methods, and one class per
 * C struct with {@code layout()}, {@code sizeof()} and per-field accessors and offsets.
 * {@code StructLayoutTest} compares every layout and constant with the C headers.
 *
 * <p>liburing's {@code static inline} functions are not exported by the library, so
 * {@link dev.spindle.iouring.ffi.LibUringInline} does them in Java on the same memory.
 */
package dev.spindle.iouring.ffi;
