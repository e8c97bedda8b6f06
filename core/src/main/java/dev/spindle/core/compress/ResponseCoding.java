// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import dev.spindle.core.bytes.Ascii;

import dev.spindle.core.Compression;
import dev.spindle.core.ContentEncoding;
import dev.spindle.core.Response;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.ResponseState;
import dev.spindle.core.exchange.Route;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A route's response compression, applied to the answer a handler (or the router, for a failure)
 * left, before a wire protocol encodes it: HTTP/1.1 and HTTP/2 call {@link #apply} at the same
 * point, so every server compresses the same way. It decides (the table in {@link Compression})
 * and rewrites the response: a whole body is replaced by its compressed bytes, a streamed one is
 * wrapped so it is compressed as it is produced, with no length (chunked, or DATA frames).
 */
public final class ResponseCoding {
    private static final Logger log = LoggerFactory.getLogger(ResponseCoding.class);
    /** Header names the server adds, one instance each so HTTP/2 recognises them by identity. */
    public static final String VARY = "Vary";
    public static final String CONTENT_ENCODING = "Content-Encoding";
    public static final String ACCEPT_ENCODING = "Accept-Encoding";
    private static final byte[] EMPTY = new byte[0];

    private ResponseCoding() {
    }

    /**
     * Compresses the answer if the route, the request and the answer allow it, and marks it
     * {@code Vary: Accept-Encoding} whenever the route compresses.
     *
     * @return true when the request accepts no coding, identity excluded, for a 2xx answer: the
     *         caller answers 406 instead (and applies this again to that answer)
     */
    public static boolean apply(RequestState req, ResponseState res) {
        Route route = req.route;
        Compression c = route == null ? null : route.compression;
        return c != null && apply(req, res, c);
    }

    static boolean apply(RequestState req, ResponseState res, Compression c) {
        addVary(res);
        int status = res.status;
        if (status == 204 || status == 206 || res.headerIndex(CONTENT_ENCODING) >= 0 || res.headerIndex("Content-Range") >= 0) {
            // nothing to code, a range of the identity, or coded by the handler already
            return false;
        }
        int choice = AcceptEncoding.select(req, c.encodings());
        if (status == 304) {
            // the validators are those the 200 would carry (RFC 9110 15.4.5)
            if (choice >= 0 && c.compresses(res.contentType)) {
                weakenETag(res);
            }
            return false;
        }
        if (choice == AcceptEncoding.NONE) {
            return status < 300;
        }
        if (choice == AcceptEncoding.IDENTITY) {
            return false;
        }
        boolean streamed = res.api.isStreamed();
        if ((choice & AcceptEncoding.IDENTITY_REFUSED) == 0) {
            if (!c.compresses(res.contentType)) {
                return false;
            }
            long length = streamed ? res.streamLength : wholeLength(res);
            if (length >= 0 && length < c.minSize()) {
                return false;
            }
        }
        ContentEncoding e = c.encodings().get(choice & 0xFFFF);
        if (streamed) {
            encodeStreamed(res, e);
        } else if (!encodeWhole(res, e)) {
            return false;
        }
        res.addHeader(CONTENT_ENCODING, e.name());
        weakenETag(res);
        return false;
    }

    /** The failure a 2xx answer becomes when the request accepts no coding, identity included (RFC 9110 15.5.7). */
    public static dev.spindle.core.HttpException notAcceptable() {
        return new dev.spindle.core.HttpException(406, "the request accepts no content coding this server has, not even identity");
    }

    /** A whole body's length as the minimum size sees it: a string's in characters, a lower bound of its bytes. */
    private static long wholeLength(ResponseState res) {
        if (res.bodyString != null) {
            return res.bodyString.length();
        }
        if (res.bodyArray != null) {
            return res.bodyLength;
        }
        return res.bodyBuffer != null ? res.bodyBuffer.remaining() : 0;
    }

    private static boolean encodeWhole(ResponseState res, ContentEncoding e) {
        byte[] coded;
        try {
            if (e instanceof DeflateEncoding d) {
                coded = res.bodyString != null ? d.encode(res.bodyString)
                        : res.bodyArray != null ? d.encode(res.bodyArray, res.bodyOffset, res.bodyLength)
                        : res.bodyBuffer != null ? d.encode(res.bodyBuffer)
                        : d.encode(EMPTY, 0, 0);
            } else {
                coded = encodeWith(res, e);
            }
        } catch (IOException | RuntimeException failed) {
            // the identity goes instead: a coding that fails must not fail the answer
            log.warn("{} could not encode a response body; sending it uncompressed", e.name(), failed);
            return false;
        }
        res.bodyString = null;
        res.bodyBuffer = null;
        res.bodyArray = coded;
        res.bodyOffset = 0;
        res.bodyLength = coded.length;
        return true;
    }

    private static byte[] encodeWith(ResponseState res, ContentEncoding e) throws IOException {
        ByteSink sink = new ByteSink(1024);
        try (OutputStream z = e.encoder(sink)) {
            if (res.bodyString != null) {
                z.write(res.bodyString.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } else if (res.bodyArray != null) {
                z.write(res.bodyArray, res.bodyOffset, res.bodyLength);
            } else if (res.bodyBuffer != null) {
                java.nio.ByteBuffer b = res.bodyBuffer.duplicate();
                byte[] piece = new byte[Math.min(b.remaining(), 16 * 1024)];
                while (b.hasRemaining()) {
                    int n = Math.min(piece.length, b.remaining());
                    b.get(piece, 0, n);
                    z.write(piece, 0, n);
                }
            }
        }
        return sink.toByteArray();
    }

    private static void encodeStreamed(ResponseState res, ContentEncoding e) {
        if (res.bodySource != null) {
            // the encoder is a stream: the source is written through it on a producer thread
            res.bodyWriter = new EncodedWriter(new dev.spindle.core.exchange.SourceWriter(res.bodySource), e);
            res.bodySource = null;
        } else if (res.bodyWriter != null) {
            res.bodyWriter = new EncodedWriter(res.bodyWriter, e);
        } else if (res.bodyStream != null) {
            res.bodyStream = new EncodingInputStream(res.bodyStream, res.streamLength, e);
        } else {
            res.bodyStream = new EncodingInputStream(Channels.newInputStream(res.bodyFile), res.streamLength, e);
            res.bodyFile = null;
        }
        res.streamLength = -1;
    }

    /** A body writer whose output is compressed; the encoder is made when the writer runs, and closed once. */
    private record EncodedWriter(Response.BodyWriter inner, ContentEncoding encoding) implements Response.BodyWriter {
        @Override
        public void writeTo(OutputStream out) throws IOException {
            OutputStream z = encoding.encoder(out);
            OutputStream once = new OutputStream() {
                private boolean closed;

                @Override
                public void write(int b) throws IOException {
                    z.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    z.write(b, off, len);
                }

                @Override
                public void flush() throws IOException {
                    z.flush();
                }

                @Override
                public void close() throws IOException {
                    if (!closed) {
                        closed = true;
                        z.close();
                    }
                }
            };
            try (once) {
                inner.writeTo(once);
            }
        }
    }

    /** {@code Vary: Accept-Encoding}, unless a {@code Vary} field names it already (or is {@code *}). */
    static void addVary(ResponseState res) {
        for (int i = 0; i < res.headerCount; i++) {
            if (res.headerNames[i].equalsIgnoreCase(VARY) && (Ascii.listHasToken(res.headerValues[i], ACCEPT_ENCODING) || Ascii.listHasToken(res.headerValues[i], "*"))) {
                return;
            }
        }
        res.addHeader(VARY, ACCEPT_ENCODING);
    }

    /** A strong {@code ETag} names the identity's bytes: the compressed variant's is weak (RFC 9110 8.8.3). */
    static void weakenETag(ResponseState res) {
        int i = res.headerIndex("ETag");
        if (i >= 0 && res.headerValues[i].startsWith("\"")) {
            res.headerValues[i] = "W/" + res.headerValues[i];
        }
    }
}
