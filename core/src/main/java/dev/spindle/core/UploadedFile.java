// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.nio.file.Path;

/**
 * A file part of a {@link MultipartForm}, its content written to a temporary file that is deleted
 * when the exchange ends (or the form is closed): move it elsewhere to keep it.
 *
 * @param name the form field's name
 * @param filename the file's name as {@link Part#filename()} gives it: no directories, possibly empty
 * @param contentType the part's {@code Content-Type} ({@code text/plain} when it had none)
 * @param size the file's length in bytes
 * @param path where its content lies
 */
public record UploadedFile(String name, String filename, String contentType, long size, Path path) {
}
