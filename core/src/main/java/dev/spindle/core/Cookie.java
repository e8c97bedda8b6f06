// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.bytes.HttpDate;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A cookie to set, as a {@code Set-Cookie} field (RFC 6265 4.1): {@link Response#cookie} sends it.
 * Immutable: each attribute method returns a copy. Names must be tokens and values cookie-octets
 * (no whitespace, {@code "}, {@code ,}, {@code ;} or {@code \}), optionally in double quotes;
 * {@code Path} and {@code Domain} must not hold {@code ;} or control characters; anything else
 * is an {@link IllegalArgumentException}, so that a value taken from a request can never add a
 * header or an attribute of its own.
 * {@snippet :
 * res.cookie(Cookie.of("session", id).path("/").httpOnly().secure().sameSite(Cookie.SameSite.LAX)
 *         .maxAge(Duration.ofHours(8)));
 * }
 * Read the cookies a request carries with {@link Request#cookie(String)}.
 */
public final class Cookie {
    /** The {@code SameSite} attribute: when a browser sends the cookie on requests from other sites. */
    public enum SameSite {
        /** Only on same-site requests. */
        STRICT("Strict"),
        /** Also on top-level navigations from other sites (the browsers' default). */
        LAX("Lax"),
        /** On every request, which browsers allow only with {@code Secure}. */
        NONE("None");

        private final String value;

        SameSite(String value) {
            this.value = value;
        }
    }

    private final String name;
    private final String value;
    private final Duration maxAge;
    private final Instant expires;
    private final String path;
    private final String domain;
    private final boolean secure;
    private final boolean httpOnly;
    private final SameSite sameSite;

    private Cookie(String name, String value, Duration maxAge, Instant expires, String path, String domain, boolean secure,
            boolean httpOnly, SameSite sameSite) {
        this.name = name;
        this.value = value;
        this.maxAge = maxAge;
        this.expires = expires;
        this.path = path;
        this.domain = domain;
        this.secure = secure;
        this.httpOnly = httpOnly;
        this.sameSite = sameSite;
    }

    /**
     * A session cookie (no expiry) with no attributes.
     *
     * @param name a token
     * @param value cookie-octets, possibly empty, optionally quoted
     * @return the cookie
     * @throws IllegalArgumentException if the name or value could not be sent as they are
     */
    public static Cookie of(String name, String value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty cookie name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 0x7F || !dev.spindle.core.bytes.Ascii.isTchar((byte) c)) {
                throw new IllegalArgumentException("a cookie name is a token; invalid: " + name);
            }
        }
        String bare = value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"") ? value.substring(1, value.length() - 1) : value;
        for (int i = 0; i < bare.length(); i++) {
            char c = bare.charAt(i);
            if (c < 0x21 || c > 0x7E || c == '"' || c == ',' || c == ';' || c == '\\') {
                throw new IllegalArgumentException("a cookie value holds no whitespace, control characters, '\"', ',', ';' or '\\'; invalid: "
                        + name + "=" + value);
            }
        }
        return new Cookie(name, value, null, null, null, null, false, false, null);
    }

    /**
     * A cookie that deletes {@code name} at the browser: an empty value, {@code Max-Age=0}. The
     * path and domain must match the cookie's own.
     *
     * @param name the cookie to delete
     * @return the deleting cookie
     */
    public static Cookie delete(String name) {
        return of(name, "").maxAge(Duration.ZERO);
    }

    /**
     * {@code Max-Age}: how long the browser keeps it; zero or less deletes it.
     *
     * @param age the lifetime, sent in whole seconds
     * @return a copy with it
     */
    public Cookie maxAge(Duration age) {
        return new Cookie(name, value, Objects.requireNonNull(age, "age"), expires, path, domain, secure, httpOnly, sameSite);
    }

    /**
     * {@code Expires}: when the browser drops it ({@code Max-Age} wins where both are sent).
     *
     * @param at the instant, sent as an HTTP date
     * @return a copy with it
     */
    public Cookie expires(Instant at) {
        return new Cookie(name, value, maxAge, Objects.requireNonNull(at, "at"), path, domain, secure, httpOnly, sameSite);
    }

    /**
     * {@code Path}: the paths it is sent on.
     *
     * @param value a path, without {@code ;} or control characters
     * @return a copy with it
     */
    public Cookie path(String value) {
        return new Cookie(name, this.value, maxAge, expires, attribute("Path", value), domain, secure, httpOnly, sameSite);
    }

    /**
     * {@code Domain}: the host and its subdomains it is sent to.
     *
     * @param value a domain, without {@code ;} or control characters
     * @return a copy with it
     */
    public Cookie domain(String value) {
        return new Cookie(name, this.value, maxAge, expires, path, attribute("Domain", value), secure, httpOnly, sameSite);
    }

    /** {@return a copy with {@code Secure}: sent over HTTPS only} */
    public Cookie secure() {
        return new Cookie(name, value, maxAge, expires, path, domain, true, httpOnly, sameSite);
    }

    /** {@return a copy with {@code HttpOnly}: hidden from the page's scripts} */
    public Cookie httpOnly() {
        return new Cookie(name, value, maxAge, expires, path, domain, secure, true, sameSite);
    }

    /**
     * {@code SameSite}; {@link SameSite#NONE} needs {@link #secure()} too when the field is made.
     *
     * @param policy the policy
     * @return a copy with it
     */
    public Cookie sameSite(SameSite policy) {
        return new Cookie(name, value, maxAge, expires, path, domain, secure, httpOnly, Objects.requireNonNull(policy, "policy"));
    }

    /** {@return the cookie's name} */
    public String name() {
        return name;
    }

    /** {@return the cookie's value, as it is sent} */
    public String value() {
        return value;
    }

    private static String attribute(String what, String value) {
        Objects.requireNonNull(value, what);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c == 0x7F || c == ';' || c > 0x7E) {
                throw new IllegalArgumentException(what + " holds no ';' or control characters; invalid: " + value);
            }
        }
        return value;
    }

    /**
     * {@return the {@code Set-Cookie} field value}
     *
     * @throws IllegalStateException for {@code SameSite=None} without {@code Secure}, which browsers reject
     */
    public String fieldValue() {
        if (sameSite == SameSite.NONE && !secure) {
            throw new IllegalStateException("SameSite=None needs Secure (browsers reject it otherwise): cookie " + name);
        }
        StringBuilder b = new StringBuilder(name.length() + value.length() + 32).append(name).append('=').append(value);
        if (maxAge != null) {
            b.append("; Max-Age=").append(Math.max(0, maxAge.toSeconds()));
        }
        if (expires != null) {
            b.append("; Expires=").append(HttpDate.format(expires));
        }
        if (path != null) {
            b.append("; Path=").append(path);
        }
        if (domain != null) {
            b.append("; Domain=").append(domain);
        }
        if (secure) {
            b.append("; Secure");
        }
        if (httpOnly) {
            b.append("; HttpOnly");
        }
        if (sameSite != null) {
            b.append("; SameSite=").append(sameSite.value);
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return fieldValue();
    }
}
