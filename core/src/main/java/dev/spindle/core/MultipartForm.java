// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code multipart/form-data} body read whole ({@link Multipart#form()},
 * {@link Multipart#readForm()}): its fields (parts without a file name) decoded in memory, each at
 * most {@link MultipartOptions#maxFieldSize} bytes, and its files written to temporary files
 * ({@link MultipartOptions#tempDirectory}), in the order they came. The files are deleted when the
 * exchange ends, or earlier by {@link #close()}; move one elsewhere to keep it.
 */
public final class MultipartForm implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MultipartForm.class);

    private final List<String> names = new ArrayList<>();
    private final List<String> values = new ArrayList<>();
    private final List<UploadedFile> files = new ArrayList<>();
    /** Every temporary file created for this form, kept until they are deleted; guarded by this. */
    private final List<Path> created = new ArrayList<>();
    private final Map<Class<?>, Function<String, ?>> converters;
    private boolean closed;

    MultipartForm(Map<Class<?>, Function<String, ?>> converters) {
        this.converters = converters;
    }

    void addField(String name, String value) {
        names.add(name);
        values.add(value);
    }

    void addFile(UploadedFile file) {
        files.add(file);
    }

    /** A new temporary file in {@code directory}, deleted with the form; refused once the form is closed. */
    synchronized Path newFile(Path directory) throws IOException {
        if (closed) {
            throw new IOException("the exchange has ended: no more files for its form");
        }
        Path file = directory == null ? Files.createTempFile("spindle-upload-", ".part")
                : Files.createTempFile(directory, "spindle-upload-", ".part");
        created.add(file);
        return file;
    }

    /**
     * The first value of a field.
     *
     * @param name the field's name, compared exactly
     * @return its value, or null when there is no such field (file parts are not fields: {@link #file})
     */
    public String value(String name) {
        int i = names.indexOf(name);
        return i < 0 ? null : values.get(i);
    }

    /**
     * Every value of a field, in order.
     *
     * @param name the field's name
     * @return the values, empty when there are none
     */
    public List<String> values(String name) {
        List<String> all = new ArrayList<>(2);
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equals(name)) {
                all.add(values.get(i));
            }
        }
        return List.copyOf(all);
    }

    /** {@return the fields' names, each once, in the order they first came} */
    public Set<String> names() {
        return java.util.Collections.unmodifiableSet(new LinkedHashSet<>(names));
    }

    /**
     * A field that must be there, as a {@code type} (the types of {@link Request#pathParam(String, Class)}).
     *
     * @param <T> the type
     * @param name the field's name
     * @param type the type to convert to
     * @return the value of its first occurrence
     * @throws HttpException 400 when it is absent, or not such a value
     */
    public <T> T value(String name, Class<T> type) {
        String text = value(name);
        if (text == null) {
            throw Params.missing("form field '" + name + "'");
        }
        return Params.convert("form field '" + name + "'", text, type, converters);
    }

    /**
     * A field as a {@code type}, or {@code defaultValue} when it is absent.
     *
     * @param <T> the type
     * @param name the field's name
     * @param type the type to convert to
     * @param defaultValue what an absent field is
     * @return the value of its first occurrence, or the default
     * @throws HttpException 400 when it is there and not such a value
     */
    public <T> T value(String name, Class<T> type, T defaultValue) {
        String text = value(name);
        return text == null ? defaultValue : Params.convert("form field '" + name + "'", text, type, converters);
    }

    /**
     * The first file sent for a field.
     *
     * @param name the field's name
     * @return the file, or null when none came for it
     */
    public UploadedFile file(String name) {
        for (UploadedFile f : files) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    /**
     * Every file sent for a field ({@code <input type="file" multiple>}), in order.
     *
     * @param name the field's name
     * @return the files, empty when there are none
     */
    public List<UploadedFile> files(String name) {
        return files.stream().filter(f -> f.name().equals(name)).toList();
    }

    /** {@return every file of the form, in the order they came} */
    public List<UploadedFile> files() {
        return List.copyOf(files);
    }

    /** Deletes the form's temporary files now (the end of the exchange does it otherwise); idempotent. */
    @Override
    public void close() {
        List<Path> doomed;
        synchronized (this) {
            closed = true;
            doomed = new ArrayList<>(created);
            created.clear();
        }
        for (Path file : doomed) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("could not delete the uploaded file {}: {}", file, e.toString());
            }
        }
    }

    /** Closes the form off the calling thread when it has files (the exchange's end runs on the connection's thread). */
    void closeLater() {
        boolean any;
        synchronized (this) {
            any = !created.isEmpty();
            closed = true;
        }
        if (any) {
            Thread.ofVirtual().name("spindle-multipart-cleanup").start(this::close);
        }
    }

    @Override
    public String toString() {
        return "MultipartForm[fields=" + names() + ", files=" + files.size() + "]";
    }
}
