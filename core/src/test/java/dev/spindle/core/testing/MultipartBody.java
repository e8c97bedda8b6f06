// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** A {@code multipart/form-data} body built part by part, for tests and the conformance suite. */
public final class MultipartBody {
    private final String boundary;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** @param boundary the boundary parameter, without the leading dashes */
    public MultipartBody(String boundary) {
        this.boundary = boundary;
    }

    /** A text field. */
    public MultipartBody field(String name, String value) {
        return part("Content-Disposition: form-data; name=\"" + name + "\"\r\n", value.getBytes(StandardCharsets.UTF_8));
    }

    /** A file part with its file name and type. */
    public MultipartBody file(String name, String filename, String type, byte[] content) {
        return part("Content-Disposition: form-data; name=\"" + name + "\"; filename=\"" + filename + "\"\r\nContent-Type: "
                + type + "\r\n", content);
    }

    /** A part with the given header lines (each ending in CRLF) and content. */
    public MultipartBody part(String headers, byte[] content) {
        out.writeBytes(("--" + boundary + "\r\n" + headers + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(content);
        out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return this;
    }

    /** {@return the body with its closing delimiter} */
    public byte[] end() {
        out.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    /** {@return the parts so far, without the closing delimiter} */
    public byte[] unfinished() {
        return out.toByteArray();
    }
}
