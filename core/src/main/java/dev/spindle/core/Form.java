// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The fields of an {@code application/x-www-form-urlencoded} body, percent-decoded (UTF-8,
 * {@code +} as space), in the order they came: what an HTML form posts. Read it with
 * {@link Request#form()} (a buffered body, or a streamed one on a thread that may block), or
 * {@link #parse(byte[])} on the bytes of {@link Request#readBody()} in an asynchronous handler.
 * Its size is the route's body limit; it holds at most {@link #MAX_FIELDS} fields (more is a 413),
 * and a malformed escape is a 400. Immutable.
 */
public final class Form {
    /** The most fields a form may have. */
    public static final int MAX_FIELDS = 1000;

    private final String[] names;
    private final String[] values;
    private final Map<Class<?>, Function<String, ?>> converters;

    private Form(String[] names, String[] values, Map<Class<?>, Function<String, ?>> converters) {
        this.names = names;
        this.values = values;
        this.converters = converters;
    }

    /**
     * Parses a form body.
     *
     * @param body the body's bytes
     * @return the form
     * @throws HttpException 400 for a malformed percent-escape, 413 for more than {@link #MAX_FIELDS} fields
     */
    public static Form parse(byte[] body) {
        return parse(body, null);
    }

    static Form parse(byte[] body, Map<Class<?>, Function<String, ?>> converters) {
        MemorySegment data = MemorySegment.ofArray(body);
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        int i = 0;
        while (i < body.length) {
            int end = indexOf(body, (byte) '&', i);
            if (end > i) {
                if (names.size() == MAX_FIELDS) {
                    throw new HttpException(413, "a form has at most " + MAX_FIELDS + " fields");
                }
                int eq = indexOf(body, (byte) '=', i, end);
                names.add(PercentDecoder.decode(data, body, i, eq, true));
                values.add(eq == end ? "" : PercentDecoder.decode(data, body, eq + 1, end, true));
            }
            i = end + 1;
        }
        return new Form(names.toArray(String[]::new), values.toArray(String[]::new), converters);
    }

    private static int indexOf(byte[] b, byte c, int from) {
        return indexOf(b, c, from, b.length);
    }

    private static int indexOf(byte[] b, byte c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return to;
    }

    /**
     * The first value of a field.
     *
     * @param name the field's name, compared exactly once decoded
     * @return its value, empty for {@code name=} or {@code name}; null when there is no such field
     */
    public String value(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return values[i];
            }
        }
        return null;
    }

    /**
     * Every value of a field, in order ({@code tag=a&tag=b}: {@code [a, b]}).
     *
     * @param name the field's name
     * @return the values, empty when there are none
     */
    public List<String> values(String name) {
        List<String> all = new ArrayList<>(2);
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                all.add(values[i]);
            }
        }
        return List.copyOf(all);
    }

    /** {@return the fields' names, each once, in the order they first came} */
    public Set<String> names() {
        return java.util.Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(names)));
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

    @Override
    public String toString() {
        return "Form" + names();
    }
}
