// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One HTTP/1.1 response as {@link ResponseReader} read it off the wire: header fields in the order
 * they came, names as sent (looked up case-insensitively), and the body already de-chunked.
 */
public record RawResponse(int status, String reason, List<Field> headers, byte[] body) {

    /** A header field line, its value without the optional white space around it. */
    public record Field(String name, String value) {
    }

    /** The first value of a header, or null. */
    public String header(String name) {
        for (Field f : headers) {
            if (f.name().equalsIgnoreCase(name)) {
                return f.value();
            }
        }
        return null;
    }

    /** Every value of a header, in order. */
    public List<String> headers(String name) {
        List<String> values = new ArrayList<>();
        for (Field f : headers) {
            if (f.name().equalsIgnoreCase(name)) {
                values.add(f.value());
            }
        }
        return values;
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** True when the response says {@code Connection: close}. */
    public boolean closes() {
        for (String value : headers("Connection")) {
            if (value.equalsIgnoreCase("close")) {
                return true;
            }
        }
        return false;
    }

    public boolean interim() {
        return status < 200;
    }

    /** Status, headers but Date, and body: what must not depend on when or how the bytes arrived. */
    public String withoutDate() {
        StringBuilder sb = new StringBuilder().append(status).append(' ').append(reason).append('\n');
        for (Field f : headers) {
            if (!f.name().equalsIgnoreCase("Date")) {
                sb.append(f.name()).append(": ").append(f.value()).append('\n');
            }
        }
        return sb.append('\n').append(new String(body, StandardCharsets.ISO_8859_1)).toString();
    }

    @Override
    public String toString() {
        String b = new String(body, StandardCharsets.ISO_8859_1);
        return "RawResponse[" + status + " " + reason + ", " + headers + ", body="
                + (b.length() > 300 ? b.substring(0, 300) + "...(" + b.length() + " chars)" : b) + "]";
    }
}
