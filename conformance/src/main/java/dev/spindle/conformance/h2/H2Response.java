// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A response as received on one stream: the final header section, the body, the trailers.
 *
 * @param stream the stream it came on
 * @param headers the final header section, {@code :status} first
 * @param body the DATA payloads, padding removed, concatenated
 * @param trailers the trailer section, empty if none
 */
public record H2Response(int stream, List<Header> headers, byte[] body, List<Header> trailers) {
    /**
     * The {@code :status} pseudo-header.
     *
     * @return the status code, or -1 if missing or not a number
     */
    public int status() {
        String s = header(":status");
        try {
            return s == null ? -1 : Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * The first value of a field of the header section.
     *
     * @param name the name, lower case
     * @return the value, or null
     */
    public String header(String name) {
        for (Header h : headers) {
            if (h.name().equals(name)) {
                return h.value();
            }
        }
        return null;
    }

    /**
     * The body as UTF-8 text.
     *
     * @return the text
     */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
