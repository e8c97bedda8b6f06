// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.http2.Http2Codec;
import java.util.Locale;

/**
 * Writes a {@link ClientRequest} as an HTTP/2 header block (RFC 9113 8.3.1), the counterpart of
 * {@link RequestEncoder}: the pseudo-headers ({@code :authority} from the request's {@code Host}
 * if it sets one), its fields in lower case without the connection-specific ones (RFC 9113
 * 8.2.2; {@code te} only as {@code trailers}), credentials and cookies never indexed, and
 * {@code content-length} when the body's length is known.
 */
final class Http2RequestEncoder {
    private Http2RequestEncoder() {
    }

    /** Writes {@code r}'s HEADERS (and CONTINUATION) frames on stream {@code id}. */
    static void encode(ClientRequest r, int id, boolean endStream, String scheme, String authority, int peerMaxFrameSize, Http2Codec codec) {
        codec.beginHeaders(id, endStream);
        codec.field(":method", r.method());
        codec.field(":scheme", scheme);
        String host = null;
        for (int i = 0; i < r.fieldCount(); i++) {
            if (r.fieldName(i).equalsIgnoreCase("host")) {
                host = r.fieldValue(i);
            }
        }
        codec.field(":authority", host != null ? host : authority);
        codec.field(":path", r.targetSource().substring(r.targetFrom(), r.targetTo()));
        for (int i = 0; i < r.fieldCount(); i++) {
            String name = lowerCase(r.fieldName(i));
            if (name.equals("host") || name.equals("connection") || name.equals("keep-alive") || name.equals("proxy-connection")
                    || name.equals("transfer-encoding") || name.equals("upgrade") || name.equals("te") && !r.fieldValue(i).equalsIgnoreCase("trailers")) {
                continue;
            }
            if (name.equals("authorization") || name.equals("cookie") || name.equals("proxy-authorization")) {
                codec.sensitiveField(name, r.fieldValue(i));
            } else {
                codec.field(name, r.fieldValue(i));
            }
        }
        byte[] body = r.bodyBytes();
        if (r.streamsBody()) {
            if (r.streamedBodyLength() >= 0) {
                codec.field("content-length", Long.toString(r.streamedBodyLength()));
            }
        } else if (body != null || r.bodyExpected()) {
            codec.field("content-length", Integer.toString(body != null ? body.length : 0));
        }
        codec.endHeaders(peerMaxFrameSize);
    }

    private static String lowerCase(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                return name.toLowerCase(Locale.ROOT);
            }
        }
        return name;
    }
}
