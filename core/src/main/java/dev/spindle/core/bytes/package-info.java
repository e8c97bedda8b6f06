// SPDX-License-Identifier: Apache-2.0
/** ASCII matching and decoding over raw request memory without creating Strings, the output buffer HTTP/1.1 and TLS encode into, and the client's collector of an answer's head. Not exported. */
package dev.spindle.core.bytes;
