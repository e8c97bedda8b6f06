// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Builds a {@link MultipartForm} from a parser's events, on a thread that may block: a field's
 * content into memory (at most {@link MultipartOptions#maxFieldSize}), a file's to a temporary
 * file. The form's files are deleted when the request's exchange ends, so none outlives it.
 */
final class MultipartCollector {
    private final MultipartOptions options;
    private final MultipartForm form;
    private Part part;
    private ByteArrayOutputStream field;
    private FileChannel channel;
    private Path file;
    private long size;

    MultipartCollector(Request request, MultipartOptions options) {
        this.options = options;
        this.form = new MultipartForm(request.state.route == null ? null : request.state.route.converters);
        request.onEnd(end -> form.closeLater());
    }

    /** Hands the parser's events to the form until it needs input; true once the close delimiter came. */
    boolean drain(MultipartParser parser) throws IOException {
        while (true) {
            switch (parser.next()) {
                case MultipartParser.NEED_INPUT -> {
                    return parser.ended();
                }
                case MultipartParser.PART -> begin(parser.part());
                case MultipartParser.DATA -> data(parser.dataArray(), parser.dataOffset(), parser.dataLength());
                case MultipartParser.PART_END -> end();
                default -> {
                    return true;
                }
            }
        }
    }

    private void begin(Part next) throws IOException {
        part = next;
        size = 0;
        if (next.isFile()) {
            file = form.newFile(options.tempDirectory());
            channel = FileChannel.open(file, StandardOpenOption.WRITE);
        } else {
            field = new ByteArrayOutputStream();
        }
    }

    private void data(byte[] b, int off, int len) throws IOException {
        size += len;
        if (channel != null) {
            ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        } else {
            if (size > options.maxFieldSize()) {
                throw new HttpException(413, "field '" + part.name() + "' is larger than " + options.maxFieldSize() + " bytes");
            }
            field.write(b, off, len);
        }
    }

    private void end() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
            form.addFile(new UploadedFile(part.name(), part.filename(), part.contentType(), size, file));
        } else {
            form.addField(part.name(), new String(field.toByteArray(), part.charset()));
            field = null;
        }
        part = null;
    }

    /** {@return the form, once the body has been read to its close delimiter} */
    MultipartForm form() {
        return form;
    }

    /** The body failed: the file being written is closed and every file of the form deleted. */
    void abort() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // deleted below regardless
            }
            channel = null;
        }
        form.close();
    }
}
