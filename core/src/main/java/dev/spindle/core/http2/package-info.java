/**
 * HTTP/2 (RFC 9113) without I/O, being built: HPACK header block decoding (RFC 7541) into the
 * connection's dynamic table, with the header list's size limited while decoding; the frame layer
 * ({@link dev.spindle.core.http2.FrameReader} checks and hands on frames read from the input,
 * {@link dev.spindle.core.http2.Frames} appends frames to a {@link dev.spindle.core.http2.WireBuffer}).
 * Not exported.
 */
package dev.spindle.core.http2;
