/** ASCII matching and decoding over raw request memory, without creating Strings. Not exported. */
package dev.spindle.core.bytes;
