// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.Fixtures;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.multipart.Attribute;
import io.netty.handler.codec.http.multipart.DefaultHttpDataFactory;
import io.netty.handler.codec.http.multipart.DiskAttribute;
import io.netty.handler.codec.http.multipart.DiskFileUpload;
import io.netty.handler.codec.http.multipart.FileUpload;
import io.netty.handler.codec.http.multipart.HttpDataFactory;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.netty.handler.codec.http.multipart.InterfaceHttpData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * {@code POST /multipart} in Netty's idiom: an {@link HttpPostRequestDecoder} per request, offered each
 * chunk as it arrives, on a disk-backed factory ({@link DefaultHttpDataFactory#MINSIZE}: a part in
 * memory up to 16 KB, then in a temporary file), so the heap holds a few chunks whatever the upload's
 * size. The answer is the benchmark app's: the fields, and each file's name, filename, size and
 * SHA-256 read back from the disk (off the event loop, as the app's blocking handler does).
 */
final class MultipartUploads {
    /** The largest upload a part may be (the benchmark app's {@code MAX_MULTIPART_BYTES}). */
    static final long MAX_BYTES = 1L << 30;
    private static final int READ_BUFFER = 64 * 1024;

    /** One factory for the process: it tracks each request's files until {@link HttpPostRequestDecoder#destroy()}. */
    private static final HttpDataFactory FACTORY;

    static {
        // the temporary directory, and no deleteOnExit: destroy() deletes each file (deleteOnExit would keep
        // every path in a JVM-wide list until exit)
        DiskFileUpload.deleteOnExitTemporaryFile = false;
        DiskFileUpload.baseDirectory = null;
        DiskAttribute.deleteOnExitTemporaryFile = false;
        DiskAttribute.baseDirectory = null;
        DefaultHttpDataFactory factory = new DefaultHttpDataFactory(DefaultHttpDataFactory.MINSIZE);
        factory.setMaxLimit(MAX_BYTES);
        FACTORY = factory;
    }

    private MultipartUploads() {
    }

    /** The decoder of one upload; throws {@link HttpPostRequestDecoder.ErrorDataDecoderException} on a bad header. */
    static HttpPostRequestDecoder decoder(HttpRequest request) {
        return new HttpPostRequestDecoder(FACTORY, request);
    }

    /** A completed part, as the answer lists it: a field's value, or a file's place (on disk, or in memory when small). */
    record Part(String name, String value, String filename, long size, Path file, byte[] bytes) {
    }

    /** The parts the decoder has completed so far, in order, into {@code into} (call after each offer). */
    static void drain(HttpPostRequestDecoder decoder, List<Part> into) throws IOException {
        try {
            while (decoder.hasNext()) {
                InterfaceHttpData data = decoder.next();
                if (data instanceof Attribute attribute) {
                    into.add(new Part(attribute.getName(), attribute.getValue(), null, 0, null, null));
                } else if (data instanceof FileUpload file && file.isCompleted()) {
                    if (file.isInMemory()) {
                        ByteBuf buf = file.getByteBuf();
                        byte[] bytes = new byte[buf.readableBytes()];
                        buf.getBytes(buf.readerIndex(), bytes);
                        into.add(new Part(file.getName(), null, file.getFilename(), file.length(), null, bytes));
                    } else {
                        into.add(new Part(file.getName(), null, file.getFilename(), file.length(), file.getFile().toPath(), null));
                    }
                }
            }
        } catch (HttpPostRequestDecoder.EndOfDataDecoderException end) {
            // the close delimiter has been read: no more parts
        }
    }

    /** The answer's JSON; reads the files back from the disk, so not on an event loop. */
    static String answer(List<Part> parts) throws IOException {
        StringBuilder json = new StringBuilder("{\"fields\":{");
        String comma = "";
        for (Part p : parts) {
            if (p.filename() == null) {
                json.append(comma).append(Fixtures.quote(p.name())).append(':').append(Fixtures.quote(p.value()));
                comma = ",";
            }
        }
        json.append("},\"files\":[");
        comma = "";
        for (Part p : parts) {
            if (p.filename() != null) {
                json.append(comma).append("{\"name\":").append(Fixtures.quote(p.name())).append(",\"filename\":")
                        .append(Fixtures.quote(p.filename())).append(",\"size\":").append(p.size()).append(",\"sha256\":\"")
                        .append(p.file() != null ? sha256(p.file()) : sha256(p.bytes())).append("\"}");
                comma = ",";
            }
        }
        return json.append("]}").toString();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    private static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static String sha256(Path file) throws IOException {
        MessageDigest digest = sha256();
        byte[] buffer = new byte[READ_BUFFER];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(ByteBuffer.wrap(buffer, 0, n));
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
