package dev.spindle.core;

/**
 * Turns objects into JSON and back, for {@link Request#bodyAs(Class)} and
 * {@link Response#json(Object)}. Spindle has no JSON library of its own: register an adapter to
 * the one the application uses with {@link Router.Builder#json(JsonCodec)} (the README shows one
 * for Jackson in a few lines).
 */
public interface JsonCodec {
    /** The JSON text of {@code value}, UTF-8 encoded. */
    byte[] write(Object value) throws Exception;

    /** An instance of {@code type} read from the UTF-8 JSON in {@code json[offset, offset + length)}. */
    <T> T read(byte[] json, int offset, int length, Class<T> type) throws Exception;
}
