// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Typed request parameters: a parameter's text converted to the type a handler asks for, a
 * failure being a 400 that names the parameter and the type expected (never a stack trace).
 */
final class Params {
    private static final int ECHO_LIMIT = 64;
    /** What {@link #builtIn} answers for a type it does not know. */
    private static final Object UNKNOWN = new Object();

    private Params() {
    }

    /**
     * {@code text} as a {@code type}: the router's converter for it, else a built-in one (String,
     * int, long, double, boolean, UUID, enums by name, {@link Instant}, {@link LocalDate}).
     *
     * @param what how the parameter is named in a failure, such as {@code query parameter 'limit'}
     * @throws HttpException 400 when the text is not such a value
     * @throws IllegalArgumentException when there is no converter for {@code type}
     */
    @SuppressWarnings("unchecked")
    static <T> T convert(String what, String text, Class<T> type, Map<Class<?>, Function<String, ?>> converters) {
        Function<String, ?> custom = converters == null ? null : converters.get(type);
        Object value;
        try {
            value = custom != null ? custom.apply(text) : builtIn(text, type);
            if (value == null) {
                throw new IllegalArgumentException("the converter gave no value");
            }
        } catch (RuntimeException e) {
            String shown = text.length() > ECHO_LIMIT ? text.substring(0, ECHO_LIMIT) + "..." : text;
            throw new HttpException(400, what + " must be " + expected(type, custom != null) + ", got \"" + shown + "\"", e);
        }
        if (value == UNKNOWN) {
            throw new IllegalArgumentException("no converter for " + type.getName() + ": register one with Router.Builder.converter");
        }
        return (T) value;
    }

    private static Object builtIn(String text, Class<?> type) {
        if (type == String.class) {
            return text;
        }
        if (type == int.class || type == Integer.class) {
            return Integer.parseInt(text);
        }
        if (type == long.class || type == Long.class) {
            return Long.parseLong(text);
        }
        if (type == double.class || type == Double.class) {
            double d = Double.parseDouble(text);
            if (!Double.isFinite(d)) {
                throw new NumberFormatException("not finite");
            }
            return d;
        }
        if (type == boolean.class || type == Boolean.class) {
            if (text.equalsIgnoreCase("true")) {
                return Boolean.TRUE;
            }
            if (text.equalsIgnoreCase("false")) {
                return Boolean.FALSE;
            }
            throw new IllegalArgumentException("not a boolean");
        }
        if (type == UUID.class) {
            if (text.length() != 36) {
                throw new IllegalArgumentException("not a UUID");
            }
            return UUID.fromString(text);
        }
        if (type.isEnum()) {
            for (Object c : type.getEnumConstants()) {
                if (((Enum<?>) c).name().equalsIgnoreCase(text)) {
                    return c;
                }
            }
            throw new IllegalArgumentException("no such constant");
        }
        if (type == Instant.class) {
            return parse(() -> Instant.parse(text));
        }
        if (type == LocalDate.class) {
            return parse(() -> LocalDate.parse(text));
        }
        return UNKNOWN;
    }

    private static Object parse(java.util.function.Supplier<Object> parser) {
        try {
            return parser.get();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static String expected(Class<?> type, boolean custom) {
        if (custom) {
            return "a " + type.getSimpleName();
        }
        if (type == int.class || type == Integer.class) {
            return "an integer (int)";
        }
        if (type == long.class || type == Long.class) {
            return "an integer (long)";
        }
        if (type == double.class || type == Double.class) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == UUID.class) {
            return "a UUID";
        }
        if (type.isEnum()) {
            return "one of " + Arrays.stream(type.getEnumConstants()).map(c -> ((Enum<?>) c).name().toLowerCase(Locale.ROOT))
                    .collect(Collectors.joining(", "));
        }
        if (type == Instant.class) {
            return "an ISO-8601 instant such as 2026-01-31T12:00:00Z";
        }
        if (type == LocalDate.class) {
            return "an ISO-8601 date such as 2026-01-31";
        }
        return "a " + type.getSimpleName();
    }

    /** A parameter required and absent: 400. */
    static HttpException missing(String what) {
        return new HttpException(400, what + " is required");
    }
}
