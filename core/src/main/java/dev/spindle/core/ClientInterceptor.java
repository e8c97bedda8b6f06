// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/**
 * Sees every request a {@link Client} sends, once, before it is sent: it may add header fields
 * with {@link Client.RequestBuilder#header} (a trace context, a request id, a credential).
 * Registered with {@link ClientConfig#interceptor}; a client runs its interceptors in the order
 * they were added.
 *
 * <p>It is called on the thread that calls {@link Client.RequestBuilder#send()} or
 * {@link Client.RequestBuilder#call()} (a handler's thread: what is current there, such as a
 * trace context, is current here), before the request is handed to a connection, for every
 * request of every thread, so an instance must be quick and thread-safe. What it throws
 * propagates to the caller of {@code send()} or {@code call()}, and the request is not sent.
 */
@FunctionalInterface
public interface ClientInterceptor {
    /**
     * Called once for {@code request} as it is sent.
     *
     * @param request the request: its {@link Client.RequestBuilder#method() method},
     *        {@link Client.RequestBuilder#authority() destination} and
     *        {@link Client.RequestBuilder#target() target}, and headers may still be added; it
     *        cannot be sent again from here
     */
    void beforeSend(Client.RequestBuilder request);
}
