/**
 * HTTP/2 (RFC 9113) without I/O, being built: so far HPACK (RFC 7541), decoding header blocks into
 * the connection's dynamic table with the header list's size limited while decoding, encoding the
 * server's response header blocks, and the Huffman code of both. Not exported.
 */
package dev.spindle.core.http2;
