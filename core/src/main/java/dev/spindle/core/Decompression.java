// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.client.ClientRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * The client's side of content codings, as {@link ClientConfig#decompression(boolean)} asks: a
 * request that names no {@code Accept-Encoding} of its own offers gzip, and a buffered response
 * in gzip is handed over decoded, its size bounded as the encoded one was. A streamed response is
 * handed over as it came: its {@code Content-Encoding} says how to read it.
 */
final class Decompression {
    private Decompression() {
    }

    /** Offers gzip unless the caller said what it accepts. */
    static void offer(Client.RequestBuilder request) {
        ClientRequest r = request.clientRequest();
        for (int i = 0; i < r.fieldCount(); i++) {
            if (r.fieldName(i).equalsIgnoreCase("Accept-Encoding")) {
                return;
            }
        }
        r.header("Accept-Encoding", "gzip");
    }

    /**
     * The response decoded, or as it came when it is not in gzip (or streamed).
     *
     * @param response the response
     * @param limit the most bytes the decoded body may have
     * @param authority where the request went, for a failure's message
     * @param describe the request, for a failure's message
     * @return the decoded response
     * @throws ClientException {@link Reason#BODY_TOO_LARGE} past {@code limit}, {@link Reason#MALFORMED_RESPONSE} for bytes that are no gzip
     */
    static ClientResponse decode(ClientResponse response, long limit, String authority, String describe) throws ClientException {
        String coding = response.header("Content-Encoding");
        if (response.isStreamed() || coding == null || !coding.trim().equalsIgnoreCase("gzip")) {
            return response;
        }
        byte[] body = response.bodyBytes();
        if (body.length == 0) {
            return response.decoded(body);
        }
        ByteArrayOutputStream decoded = new ByteArrayOutputStream((int) Math.min(limit, Math.max(64L, body.length * 4L)));
        byte[] buffer = new byte[8192];
        boolean tooLarge = false;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            for (int n; !tooLarge && (n = in.read(buffer)) >= 0; ) {
                tooLarge = decoded.size() + (long) n > limit;
                if (!tooLarge) {
                    decoded.write(buffer, 0, n);
                }
            }
        } catch (IOException e) {
            throw new ClientException(Reason.MALFORMED_RESPONSE, authority, describe, "the gzip body does not decode: " + e.getMessage(), e);
        }
        if (tooLarge) {
            throw new ClientException(Reason.BODY_TOO_LARGE, authority, describe,
                    "the gzip body decodes to more than " + limit + " bytes (maxResponseBodySize)", null);
        }
        return response.decoded(decoded.toByteArray());
    }
}
