// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/**
 * Turns objects into JSON and back, for {@link Request#bodyAs(Class)} and
 * {@link Response#json(Object)}. Spindle has no JSON library of its own: register an adapter to
 * the one the application uses with {@link Router.Builder#json(JsonCodec)} (the README shows one
 * for Jackson in a few lines).
 */
public interface JsonCodec {
    /**
     * The JSON text of {@code value}, UTF-8 encoded. Called on the handler's thread, possibly by
     * many threads at once, so an implementation must be thread-safe.
     *
     * @param value the object to write, possibly null
     * @return the JSON text, UTF-8 encoded; the caller sends the array without copying it
     * @throws Exception when {@code value} cannot be written; {@link Response#json(Object)} then
     *         throws an {@link IllegalStateException}
     */
    byte[] write(Object value) throws Exception;

    /**
     * An instance of {@code type} read from the UTF-8 JSON in {@code json[offset, offset + length)}.
     * Called on the handler's thread, possibly by many threads at once, so an implementation must
     * be thread-safe. The array may be the connection's buffer: read it only during the call and
     * never write to it.
     *
     * @param <T> the type to read
     * @param json the array holding the JSON text
     * @param offset the index of the JSON's first byte in {@code json}
     * @param length the JSON's length in bytes
     * @param type the class to read into
     * @return the value read
     * @throws Exception when the JSON is malformed or does not fit {@code type};
     *         {@link Request#bodyAs(Class)} then throws a {@link BodyDecodingException} (400) with it
     *         as the cause; its message does not reach the client
     */
    <T> T read(byte[] json, int offset, int length, Class<T> type) throws Exception;
}
