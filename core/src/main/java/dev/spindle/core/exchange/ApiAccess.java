// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.ExchangeListener;
import dev.spindle.core.HttpException;
import dev.spindle.core.Request;
import dev.spindle.core.RequestBody;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.Tls;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import javax.net.ssl.SSLEngine;

/**
 * What the engine needs of the API types that they do not make public: the application's views of
 * a request and a response, the producer side of a streamed body, route lookup and TLS engines.
 * {@code dev.spindle.core} installs the one instance when {@link Request} loads (the JDK's
 * {@code SharedSecrets} pattern); this package is not exported, so applications cannot reach it.
 */
public abstract class ApiAccess {
    private static volatile ApiAccess installed;

    /**
     * Installs this access; only the API package can, once.
     *
     * @throws IllegalStateException if one is installed already
     */
    protected ApiAccess() {
        synchronized (ApiAccess.class) {
            if (installed != null) {
                throw new IllegalStateException("the API's access is installed already");
            }
            installed = this;
        }
    }

    /**
     * The installed access.
     *
     * @return the access the API package installed
     */
    public static ApiAccess get() {
        ApiAccess a = installed;
        if (a != null) {
            return a;
        }
        try {
            // Request's static initialiser installs it
            Class.forName(Request.class.getName(), true, Request.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("spindle-core's API is missing", e);
        }
        return installed;
    }

    /**
     * The application's view of a parsed request.
     *
     * @param state what the parser reported
     * @return a request reading {@code state}
     */
    public abstract Request request(RequestState state);

    /**
     * The application's view of a response.
     *
     * @param state where the response's setters store what they are given
     * @return a response writing {@code state}
     */
    public abstract Response response(ResponseState state);

    /**
     * The route that answers a request.
     *
     * @param router the routes
     * @param request the request
     * @return the route, the router's fallback if none matches, or a route answering 405
     */
    public abstract Route route(Router router, RequestState request);

    /**
     * Replaces a response with the default answer to a failure: an {@code HttpException}'s status
     * and message (and the headers it requires), else 500.
     *
     * @param router the router whose error format applies (problem details or text), or null for text
     * @param request the request that failed
     * @param response the response to replace
     * @param failure what the handler threw or completed with
     */
    public abstract void answerFailure(Router router, RequestState request, ResponseState response, Throwable failure);

    /** {@return whether some route of {@code router} speaks WebSocket, so that its connections must be able to switch protocols} */
    public abstract boolean webSockets(Router router);

    /**
     * The listeners of every exchange's end the router was built with.
     *
     * @param router the router, or null
     * @return the listeners, or null when there are none
     */
    public abstract ExchangeListener[] listeners(Router router);

    /**
     * The connection's refusal of a request, as the router answers it: decorated by its filters and
     * mappers when the request's head was read, else its default error answer.
     *
     * @param router the router, or null
     * @param request the refused request, or null when its head was not read
     * @param response where a decorated answer is made (a fresh state: an abandoned one is not reused)
     * @param fallback where the default answer is made, cleared
     * @param refusal the status and reason
     * @return the state to encode: {@code response} or {@code fallback}
     */
    public abstract ResponseState refusal(Router router, RequestState request, ResponseState response, ResponseState fallback,
            HttpException refusal);

    /**
     * A new TLS engine for a connection.
     *
     * @param tls the server's TLS settings
     * @return a server-mode engine
     */
    public abstract SSLEngine newEngine(Tls tls);

    /**
     * A streamed request body, fed by the connection.
     *
     * @param length the announced length, or -1 for a chunked body
     * @param wakeup called when the consumer frees room or asks for more
     * @return the body
     */
    public abstract RequestBody newBody(long length, Runnable wakeup);

    /**
     * Bounds what {@code readAll()} and {@code Request.body()} collect.
     *
     * @param body the body
     * @param limit the route's buffered limit
     */
    public abstract void collectLimit(RequestBody body, long limit);

    /**
     * Whether the consumer has asked for bytes (time for {@code 100 Continue}).
     *
     * @param body the body
     * @return true once bytes were asked for
     */
    public abstract boolean demanded(RequestBody body);

    /**
     * Whether the consumer gave the body up.
     *
     * @param body the body
     * @return true once abandoned
     */
    public abstract boolean abandoned(RequestBody body);

    /**
     * The bytes fed so far.
     *
     * @param body the body
     * @return the count
     */
    public abstract long received(RequestBody body);

    /**
     * Whether the body takes more bytes now.
     *
     * @param body the body
     * @return true when there is room
     */
    public abstract boolean hasRoom(RequestBody body);

    /**
     * Feeds decoded body bytes.
     *
     * @param body the body
     * @param src the bytes
     * @param array the array behind {@code src}, or null
     * @param offset where they start in {@code src}
     * @param length how many
     * @return how many were taken
     */
    public abstract int offer(RequestBody body, MemorySegment src, byte[] array, long offset, int length);

    /**
     * Ends the body: every byte was fed.
     *
     * @param body the body
     */
    public abstract void end(RequestBody body);

    /**
     * Fails the body.
     *
     * @param body the body
     * @param cause why
     */
    public abstract void fail(RequestBody body, IOException cause);

    /**
     * Gives the body up: the request was answered without it.
     *
     * @param body the body
     */
    public abstract void abandon(RequestBody body);

    /**
     * The 415 for a request body in a coding the route does not undo, carrying {@code Accept-Encoding}.
     *
     * @param accepted the codings that are undone, as the field's value
     * @return the exception to answer
     */
    public abstract dev.spindle.core.HttpException unsupportedEncoding(String accepted);

    /**
     * Makes the body's consumer read it inflated.
     *
     * @param body the body, before its consumer has it
     * @param coding the coding ({@code compress.RequestDecoding}'s constants)
     * @param limit the most inflated bytes taken (then 413)
     */
    public abstract void decode(RequestBody body, int coding, long limit);

    /**
     * Whether inflating the body failed (413 or 400): the connection then closes after its answer.
     *
     * @param body the body
     * @return true once its inflation failed
     */
    public abstract boolean decodingFailed(RequestBody body);
}
