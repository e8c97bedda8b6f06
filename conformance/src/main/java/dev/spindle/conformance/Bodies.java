// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.core.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;

/** The client suites' bodies: a pattern of any length, a summary to compare bodies by, and the downstream's handlers for both. */
final class Bodies {
    private Bodies() {
    }

    /** {@return the length and CRC-32 of a stream's bytes, as {@code "<length> <crc>"}} */
    static String summary(InputStream in) throws IOException {
        CRC32 crc = new CRC32();
        long length = 0;
        byte[] buffer = new byte[16 * 1024];
        for (int n; (n = in.read(buffer)) >= 0; ) {
            crc.update(buffer, 0, n);
            length += n;
        }
        return length + " " + Long.toHexString(crc.getValue());
    }

    /** {@return {@code n} bytes of a to z, over and over} */
    static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    /** {@return a handler answering the {@link #summary} of the request's body} */
    static Handler count() {
        return Handler.blocking((req, res) -> res.text(summary(req.bodyStream())));
    }

    /** {@return a handler streaming the {@link #pattern} of the length its path parameter {@code bytes} names, 8 KiB a write} */
    static Handler large() {
        return (req, res) -> {
            byte[] body = pattern(Integer.parseInt(req.pathParam("bytes")));
            res.stream(out -> {
                for (int at = 0; at < body.length; at += 8192) {
                    out.write(body, at, Math.min(8192, body.length - at));
                }
            });
        };
    }
}
