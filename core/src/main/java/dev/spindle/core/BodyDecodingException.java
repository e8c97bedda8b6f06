// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/**
 * A request body that the router's {@link JsonCodec} could not read into the type
 * {@link Request#bodyAs(Class)} asked for: 400. The default answer says only that
 * ({@code the body is not a valid Order}); the codec's own message, which often names Java classes
 * and fields, stays in the {@linkplain #getCause() cause}, for logs. An application words the answer
 * itself with a mapper for this type:
 * {@code .exception(BodyDecodingException.class, (e, req, res) -> res.json(...))}.
 */
public class BodyDecodingException extends HttpException {
    private static final long serialVersionUID = 1L;
    /** The type the body was to be read into; not serialized (a class need not be). */
    private final transient Class<?> type;

    /**
     * A 400 for a body that is not a valid {@code type}.
     *
     * @param type the type the body was to be read into, not null
     * @param cause the codec's exception, kept as the cause; may be null
     */
    public BodyDecodingException(Class<?> type, Throwable cause) {
        super(400, "the body is not a valid " + name(type), cause);
        this.type = type;
    }

    private static String name(Class<?> type) {
        String simple = type.getSimpleName();
        return simple.isEmpty() ? "value" : simple;
    }

    /**
     * The type the body was to be read into.
     *
     * @return the class given to {@link Request#bodyAs(Class)}
     */
    public Class<?> type() {
        return type;
    }
}
