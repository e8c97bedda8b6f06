// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientResponse;
import dev.spindle.core.RequestBody;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * What the client engine needs of the API that the API does not make public: building a
 * {@link ClientResponse} from what the parser found, without decoding it, and feeding a streamed
 * body through the same bounded window ({@link RequestBody}) as a server's streamed request body. {@code dev.spindle.core}
 * installs the one instance when {@link ClientResponse} loads (the JDK's {@code SharedSecrets}
 * pattern, as {@code exchange.ApiAccess} for the server side); this package is not exported, so
 * applications cannot reach it.
 */
public abstract class ClientApiAccess {
    private static volatile ClientApiAccess installed;

    /**
     * Installs this access; only the API package can, once.
     *
     * @throws IllegalStateException if one is installed already
     */
    protected ClientApiAccess() {
        synchronized (ClientApiAccess.class) {
            if (installed != null) {
                throw new IllegalStateException("the client API's access is installed already");
            }
            installed = this;
        }
    }

    /**
     * The installed access.
     *
     * @return the access the API package installed
     */
    static ClientApiAccess get() {
        ClientApiAccess a = installed;
        if (a != null) {
            return a;
        }
        try {
            // ClientResponse's static initialiser installs it
            Class.forName(ClientResponse.class.getName(), true, ClientResponse.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("spindle-core's API is missing", e);
        }
        return installed;
    }

    /**
     * A response over the arrays given, which it keeps (the caller must not change them).
     *
     * @param status the final status code
     * @param version the version the server answered with: {@code HTTP/1.1}, {@code HTTP/1.0} or {@code HTTP/2}
     * @param head the status line and header section as received
     * @param reasonStart where the reason phrase starts in {@code head}
     * @param reasonEnd where it ends
     * @param fields four offsets per header field into {@code head}: name start, name end, value start, value end
     * @param fieldCount how many fields {@code fields} holds
     * @param body the body's bytes, from 0; null for none
     * @param bodyLength how many bytes of {@code body} are the body
     * @param trailerBytes the trailer section as received; null for none
     * @param trailerFields four offsets per trailer field into {@code trailerBytes}; null for none
     * @param trailerCount how many fields {@code trailerFields} holds
     * @return the response
     */
    public abstract ClientResponse response(int status, String version, byte[] head, int reasonStart, int reasonEnd,
            int[] fields, int fieldCount, byte[] body, int bodyLength, byte[] trailerBytes, int[] trailerFields,
            int trailerCount);

    /**
     * A streamed response over the head's arrays, which it keeps, and the body the connection feeds.
     *
     * @param status the final status code
     * @param version the version the server answered with: {@code HTTP/1.1}, {@code HTTP/1.0} or {@code HTTP/2}
     * @param head the status line and header section as received
     * @param reasonStart where the reason phrase starts in {@code head}
     * @param reasonEnd where it ends
     * @param fields four offsets per header field into {@code head}
     * @param fieldCount how many fields {@code fields} holds
     * @param body the body, fed by the connection as it arrives
     * @param collectLimit the most {@link ClientResponse#readBody()} collects
     * @return the response
     */
    public abstract ClientResponse streamedResponse(int status, String version, byte[] head, int reasonStart, int reasonEnd,
            int[] fields, int fieldCount, RequestBody body, long collectLimit);

    /**
     * A body fed by a connection and read by one consumer, at most 64 KiB waiting.
     *
     * @param length its announced length, or -1 if unknown
     * @param wakeup runs (on the consumer's thread) when the consumer made room or gave up
     * @return the body
     */
    public abstract RequestBody newBody(long length, Runnable wakeup);

    /**
     * Offers bytes to the body's consumer.
     *
     * @param body the body
     * @param src the bytes, when they are in native memory (else null)
     * @param array the bytes, when they are in an array (else null)
     * @param offset where they start in {@code src} or {@code array}
     * @param length how many
     * @return how many the body took: fewer once its window is full
     */
    public abstract int offer(RequestBody body, MemorySegment src, byte[] array, long offset, int length);

    /**
     * Whether the body takes more now.
     *
     * @param body the body
     * @return false while its window is full or its subscriber has no demand
     */
    public abstract boolean hasRoom(RequestBody body);

    /**
     * Whether the consumer gave up on the rest.
     *
     * @param body the body
     * @return true once it closed the stream or cancelled
     */
    public abstract boolean abandoned(RequestBody body);

    /**
     * The body arrived whole.
     *
     * @param body the body
     */
    public abstract void end(RequestBody body);

    /**
     * The body cannot complete: its consumer gets {@code cause}.
     *
     * @param body the body
     * @param cause why
     */
    public abstract void fail(RequestBody body, IOException cause);
}
