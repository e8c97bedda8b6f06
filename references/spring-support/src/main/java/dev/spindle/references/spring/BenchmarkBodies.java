// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.spring;

import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

/**
 * What the Spring references' benchmark routes answer with, the same on both stacks: the JSON
 * bodies as records Jackson writes, the text type, the echo limit, and the capped waits.
 */
public final class BenchmarkBodies {
    /** The largest body {@code /echo} takes; more is 413. */
    public static final int MAX_BODY_SIZE = 16 * 1024 * 1024;
    /** The content type of the text routes. */
    public static final String TEXT_PLAIN_UTF8 = "text/plain;charset=UTF-8";

    /**
     * {@code /json}'s body.
     *
     * @param message the greeting
     */
    public record Message(String message) {
    }

    /** {@code /json}'s one body. */
    public static final Message HELLO = new Message("Hello, World!");

    /**
     * {@code /users/{id}}'s body.
     *
     * @param id the path variable
     */
    public record User(String id) {
    }

    /**
     * {@code /search}'s body.
     *
     * @param q the decoded query parameter
     */
    public record Query(String q) {
    }

    /**
     * {@code /blocking/{ms}}'s body.
     *
     * @param slept how long the route slept, in milliseconds
     */
    public record Slept(int slept) {
    }

    /**
     * {@code /delay/{ms}}'s body.
     *
     * @param delayed how long the answer waited, in milliseconds
     */
    public record Delayed(int delayed) {
    }

    private BenchmarkBodies() {
    }

    /**
     * A wait asked for in a path, capped as Spindle's app caps it.
     *
     * @param ms the milliseconds asked for
     * @param max the cap
     * @return {@code ms}, at most {@code max}
     * @throws ResponseStatusException 400 if {@code ms} is negative
     */
    public static int capped(int ms, int max) {
        if (ms < 0) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "milliseconds must not be negative");
        }
        return Math.min(ms, max);
    }
}
