// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/** Request methods the router knows by name; anything else parses as {@link #OTHER}. */
public enum Method {
    /** {@code GET}: fetch a resource. */
    GET,
    /** {@code HEAD}: like {@code GET} without the body; a {@code GET} route answers it when no {@code HEAD} route matches. */
    HEAD,
    /** {@code POST}: process the enclosed body. */
    POST,
    /** {@code PUT}: replace a resource with the enclosed body. */
    PUT,
    /** {@code DELETE}: remove a resource. */
    DELETE,
    /** {@code PATCH}: change part of a resource. */
    PATCH,
    /** {@code OPTIONS}: ask for the communication options; the only method that may use the target {@code *}. */
    OPTIONS,
    /** {@code TRACE}: a loop-back of the request. */
    TRACE,
    /** {@code CONNECT}: open a tunnel; its target is an authority ({@code host:port}), not a path. */
    CONNECT,
    /** Any other method token; {@link Request#methodName()} gives it as sent. */
    OTHER;
}
