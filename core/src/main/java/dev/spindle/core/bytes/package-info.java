// SPDX-License-Identifier: Apache-2.0
/** ASCII matching and decoding over raw request memory without creating Strings, and the output buffer HTTP/1.1 and TLS encode into. Not exported. */
package dev.spindle.core.bytes;
