/**
 * HTTP/2 (RFC 9113) without I/O, being built: so far HPACK header block decoding (RFC 7541) into
 * the connection's dynamic table, with the header list's size limited while decoding. Not exported.
 */
package dev.spindle.core.http2;
