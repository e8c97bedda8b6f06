// SPDX-License-Identifier: Apache-2.0
/**
 * The zstd content coding for Spindle's response compression:
 * {@link dev.spindle.compression.zstd.ZstdEncoding}, a core {@code ContentEncoding} over zstd-jni,
 * registered explicitly with {@code Compression.encodings(...)}.
 */
module dev.spindle.compression.zstd {
    // its API is a core ContentEncoding
    requires transitive dev.spindle.core;
    requires com.github.luben.zstd_jni;

    exports dev.spindle.compression.zstd;
}
