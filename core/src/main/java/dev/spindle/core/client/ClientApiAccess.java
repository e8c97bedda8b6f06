package dev.spindle.core.client;

import dev.spindle.core.ClientResponse;
import dev.spindle.core.RequestBody;

/**
 * What the client engine needs of the API that the API does not make public: building a
 * {@link ClientResponse} from what the parser found, without decoding it. {@code dev.spindle.core}
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
     * @param http10 whether the server answered HTTP/1.0
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
    public abstract ClientResponse response(int status, boolean http10, byte[] head, int reasonStart, int reasonEnd,
            int[] fields, int fieldCount, byte[] body, int bodyLength, byte[] trailerBytes, int[] trailerFields,
            int trailerCount);

    /**
     * A streamed response over the head's arrays, which it keeps, and the body the connection feeds.
     *
     * @param status the final status code
     * @param http10 whether the server answered HTTP/1.0
     * @param head the status line and header section as received
     * @param reasonStart where the reason phrase starts in {@code head}
     * @param reasonEnd where it ends
     * @param fields four offsets per header field into {@code head}
     * @param fieldCount how many fields {@code fields} holds
     * @param body the body, fed by the connection as it arrives
     * @param collectLimit the most {@link ClientResponse#readBody()} collects
     * @return the response
     */
    public abstract ClientResponse streamedResponse(int status, boolean http10, byte[] head, int reasonStart, int reasonEnd,
            int[] fields, int fieldCount, RequestBody body, long collectLimit);
}
