// SPDX-License-Identifier: Apache-2.0
/**
 * HTTP/2 (RFC 9113) without I/O: the frame layer ({@link dev.spindle.core.http2.FrameReader} checks
 * and hands on frames read from the input, {@link dev.spindle.core.http2.Frames} appends frames to a
 * {@link dev.spindle.core.http2.WireBuffer}), HPACK (RFC 7541: decoding header blocks with the header
 * list's size limited while decoding, encoding response header blocks, the Huffman code of both),
 * and {@link dev.spindle.core.http2.Http2Connection}, whose streams are exchanges dispatched to the
 * same router and handlers as HTTP/1.1. Not exported.
 */
package dev.spindle.core.http2;
