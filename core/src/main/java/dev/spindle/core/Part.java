// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * One part of a {@code multipart/form-data} body as {@link Multipart} hands it out: its header
 * fields and its content, read as a stream while it is the current part. A field of an HTML form
 * has no {@link #filename()}; a file input's part has one (possibly empty when no file was chosen).
 */
public final class Part {
    private final String name;
    private final String filename;
    private final String contentType;
    private final String[] headerNames;
    private final String[] headerValues;
    /** The reader this part's content comes from; null for a part only described. */
    Multipart owner;
    private InputStream stream;

    Part(String name, String filename, String contentType, String[] headerNames, String[] headerValues) {
        this.name = name;
        this.filename = filename;
        this.contentType = contentType;
        this.headerNames = headerNames;
        this.headerValues = headerValues;
    }

    /** {@return the {@code name} parameter of its {@code Content-Disposition}: the form field's name} */
    public String name() {
        return name;
    }

    /**
     * The file's name: {@code filename*} (RFC 8187, UTF-8 or ISO-8859-1) when the part has one,
     * else {@code filename}, without directory components or control characters, and empty for
     * {@code .} or {@code ..}: a name alone, never a path.
     *
     * @return the file name, possibly empty; null for a part without one (a plain field)
     */
    public String filename() {
        return filename;
    }

    /** {@return whether the part has a file name: a file input's part} */
    public boolean isFile() {
        return filename != null;
    }

    /** {@return its {@code Content-Type}, or {@code text/plain} when it has none (RFC 7578 4.4)} */
    public String contentType() {
        return contentType;
    }

    /**
     * The first value of one of its header fields.
     *
     * @param name the field's name, in any case
     * @return the value without surrounding whitespace (UTF-8 where valid, else ISO-8859-1), or
     *         null when the part has no such field
     */
    public String header(String name) {
        for (int i = 0; i < headerNames.length; i++) {
            if (headerNames[i].equalsIgnoreCase(name)) {
                return headerValues[i];
            }
        }
        return null;
    }

    /**
     * Its content as it arrives: {@code read} blocks until bytes come and returns -1 at the part's
     * end. Valid while this is the current part: once the next is asked for, it reads as ended.
     *
     * @return the same stream on every call
     * @throws IllegalStateException for a part that is only described
     */
    public InputStream stream() {
        if (owner == null) {
            throw new IllegalStateException("this part's content is not readable here");
        }
        if (stream == null) {
            stream = new InputStream() {
                @Override
                public int read() throws IOException {
                    byte[] one = new byte[1];
                    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    java.util.Objects.checkFromIndexSize(off, len, b.length);
                    return len == 0 ? 0 : owner.read(Part.this, b, off, len);
                }
            };
        }
        return stream;
    }

    /**
     * The rest of its content, in memory.
     *
     * @return the bytes not read yet
     * @throws HttpException 413 when they are more than {@link MultipartOptions#maxFieldSize}
     * @throws IOException when the body cannot be read
     */
    public byte[] bytes() throws IOException {
        int max = owner == null ? 0 : owner.options().maxFieldSize();
        byte[] bytes = stream().readNBytes(max + 1);
        if (bytes.length > max) {
            throw new HttpException(413, "part '" + name + "' is larger than " + max + " bytes");
        }
        return bytes;
    }

    /**
     * The rest of its content as text: in the {@code charset} of its {@code Content-Type}, else UTF-8.
     *
     * @return the text
     * @throws HttpException 413 when it is more than {@link MultipartOptions#maxFieldSize} bytes
     * @throws IOException when the body cannot be read
     */
    public String text() throws IOException {
        return new String(bytes(), charset());
    }

    /** The {@code charset} parameter of its type when the JVM knows it, else UTF-8. */
    Charset charset() {
        int semicolon = contentType.indexOf(';');
        if (semicolon < 0) {
            return StandardCharsets.UTF_8;
        }
        try {
            String name = MultipartHeaders.param(MultipartHeaders.params(contentType, semicolon, "Content-Type"), "charset");
            return name == null || !Charset.isSupported(name) ? StandardCharsets.UTF_8 : Charset.forName(name);
        } catch (HttpException | IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }

    @Override
    public String toString() {
        return "Part[" + name + (filename != null ? ", " + filename : "") + ", " + contentType + "]";
    }
}
