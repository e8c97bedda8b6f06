// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A filter that speaks the Fetch standard's CORS protocol, so that pages of other origins may call
 * the routes it wraps. A preflight ({@code OPTIONS} with {@code Origin} and
 * {@code Access-Control-Request-Method}) is answered here, 204 with the allowed method, headers,
 * credentials and max-age when its origin, method and headers are allowed, else 403; it never
 * reaches a handler. Any other request from an allowed origin gets
 * {@code Access-Control-Allow-Origin} (and {@code -Allow-Credentials}, {@code -Expose-Headers})
 * on whatever answers it, errors and the connection's refusals included, since the headers are
 * set before the rest of the chain runs; one from another origin is served without them, so the
 * browser keeps its answer from the page (a client that is not a browser is unaffected). Answers
 * that depend on the origin say so with {@code Vary: Origin}.
 *
 * <p>Register it first ({@code Router.builder().filter(cors)}) so that what later filters refuse
 * carries its headers too. Immutable and thread-safe.
 * {@snippet :
 * Cors cors = Cors.builder()
 *         .allowOrigin("https://app.example.com")
 *         .allowOriginPattern("https://*.example.com")
 *         .allowMethods("GET", "POST", "DELETE")
 *         .allowHeaders("Content-Type", "Authorization")
 *         .allowCredentials()
 *         .maxAge(Duration.ofMinutes(10))
 *         .build();
 * }
 */
public final class Cors implements Filter {
    private static final CompletableFuture<Void> ANSWERED = CompletableFuture.completedFuture(null);

    private final Set<String> origins;
    /** Patterns split at their one {@code *}: prefix and suffix. */
    private final String[][] patterns;
    private final boolean anyOrigin;
    private final Set<String> methods;
    private final String methodList;
    /** Lower-case; null for any header. */
    private final Set<String> headers;
    private final String headerList;
    private final String exposed;
    private final boolean credentials;
    private final String maxAge;

    private Cors(Builder b) {
        origins = Set.copyOf(b.origins);
        patterns = b.patterns.toArray(String[][]::new);
        anyOrigin = b.anyOrigin;
        methods = Set.copyOf(b.methods);
        methodList = String.join(", ", b.methods);
        headers = b.anyHeader ? null : lowerCase(b.headers);
        headerList = String.join(", ", b.headers);
        exposed = b.exposed.isEmpty() ? null : String.join(", ", b.exposed);
        credentials = b.credentials;
        maxAge = b.maxAge == null ? null : Long.toString(b.maxAge.toSeconds());
    }

    /** {@return a builder: no origin is allowed until one is added; methods GET, HEAD and POST; no request headers beyond the safelisted} */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public CompletionStage<?> filter(Request request, Response response, Chain chain) {
        boolean varies = !anyOrigin || credentials;
        if (varies) {
            response.header("Vary", "Origin");
        }
        String origin = request.header("Origin");
        if (origin == null) {
            return chain.proceed();
        }
        String requestedMethod = request.method() == Method.OPTIONS ? request.header("Access-Control-Request-Method") : null;
        if (requestedMethod != null) {
            return preflight(request, response, origin, requestedMethod);
        }
        if (allowed(origin)) {
            allowOrigin(response, origin);
            if (exposed != null) {
                response.header("Access-Control-Expose-Headers", exposed);
            }
        }
        return chain.proceed();
    }

    private CompletionStage<?> preflight(Request request, Response response, String origin, String method) {
        response.header("Vary", "Access-Control-Request-Method").header("Vary", "Access-Control-Request-Headers");
        String refused = !allowed(origin) ? "origin " + origin + " is not allowed"
                : !methods.contains(method) ? "method " + method + " is not allowed"
                : refusedHeader(request.header("Access-Control-Request-Headers"));
        if (refused != null) {
            response.status(403).text("403 Forbidden: CORS preflight refused: " + refused + "\n");
            return ANSWERED;
        }
        allowOrigin(response, origin);
        response.header("Access-Control-Allow-Methods", methodList);
        String requested = request.header("Access-Control-Request-Headers");
        if (requested != null && !requested.isBlank()) {
            // any header allowed: the ones asked for; else the configured list (which holds them all)
            response.header("Access-Control-Allow-Headers", headers == null ? requested.trim() : headerList);
        }
        if (maxAge != null) {
            response.header("Access-Control-Max-Age", maxAge);
        }
        response.status(204);
        return ANSWERED;
    }

    /** The first header of {@code requested} (a comma-separated list) that is not allowed, as a reason; null when all are. */
    private String refusedHeader(String requested) {
        if (requested == null || headers == null) {
            return null;
        }
        int start = 0;
        while (start <= requested.length()) {
            int comma = requested.indexOf(',', start);
            int end = comma < 0 ? requested.length() : comma;
            String name = requested.substring(start, end).trim();
            if (!name.isEmpty() && !headers.contains(name.toLowerCase(Locale.ROOT))) {
                return "request header " + name + " is not allowed";
            }
            start = end + 1;
        }
        return null;
    }

    private void allowOrigin(Response response, String origin) {
        // never * with credentials (the Fetch standard refuses it): the origin itself
        response.header("Access-Control-Allow-Origin", anyOrigin && !credentials ? "*" : origin);
        if (credentials) {
            response.header("Access-Control-Allow-Credentials", "true");
        }
    }

    private boolean allowed(String origin) {
        if (anyOrigin || origins.contains(origin)) {
            return true;
        }
        for (String[] p : patterns) {
            if (origin.length() > p[0].length() + p[1].length() && origin.startsWith(p[0]) && origin.endsWith(p[1])) {
                String middle = origin.substring(p[0].length(), origin.length() - p[1].length());
                // a wildcard stands for host labels: never a scheme, port or path
                if (middle.chars().allMatch(c -> c == '.' || c == '-' || Character.isLetterOrDigit(c))
                        && !middle.startsWith(".") && !middle.endsWith(".")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Set<String> lowerCase(Set<String> names) {
        Set<String> lower = new LinkedHashSet<>();
        for (String n : names) {
            lower.add(n.toLowerCase(Locale.ROOT));
        }
        return Set.copyOf(lower);
    }

    /** Builds a {@link Cors} filter. */
    public static final class Builder {
        private final Set<String> origins = new LinkedHashSet<>();
        private final List<String[]> patterns = new ArrayList<>();
        private boolean anyOrigin;
        private final Set<String> methods = new LinkedHashSet<>(List.of("GET", "HEAD", "POST"));
        private boolean methodsSet;
        private final Set<String> headers = new LinkedHashSet<>();
        private boolean anyHeader;
        private final Set<String> exposed = new LinkedHashSet<>();
        private boolean credentials;
        private Duration maxAge;

        private Builder() {
        }

        /**
         * Allows an origin exactly as browsers send it: scheme, host and a port unless the default
         * ({@code https://app.example.com}, {@code http://localhost:3000}).
         *
         * @param origin the origin, without a path or a trailing slash
         * @return this builder
         * @throws IllegalArgumentException if it is not of that form
         */
        public Builder allowOrigin(String origin) {
            Objects.requireNonNull(origin, "origin");
            int scheme = origin.indexOf("://");
            if (scheme <= 0 || origin.indexOf('/', scheme + 3) >= 0 || origin.length() == scheme + 3 || origin.contains("*")) {
                throw new IllegalArgumentException("an origin is scheme://host[:port], got: " + origin);
            }
            origins.add(origin);
            return this;
        }

        /**
         * Allows the origins a pattern with one {@code *} matches, the star standing for one or more
         * host labels: {@code https://*.example.com} allows {@code https://a.example.com} and
         * {@code https://a.b.example.com}, not {@code https://example.com} nor
         * {@code http://a.example.com}.
         *
         * @param pattern scheme://, a host with one {@code *}, and an optional port
         * @return this builder
         * @throws IllegalArgumentException if the pattern has no {@code *} or more than one, or it is not in the host
         */
        public Builder allowOriginPattern(String pattern) {
            Objects.requireNonNull(pattern, "pattern");
            int star = pattern.indexOf('*');
            int scheme = pattern.indexOf("://");
            if (star < 0 || pattern.indexOf('*', star + 1) >= 0 || scheme <= 0 || star < scheme + 3
                    || pattern.indexOf('/', scheme + 3) >= 0) {
                throw new IllegalArgumentException("an origin pattern is scheme://host[:port] with one * in the host, got: " + pattern);
            }
            patterns.add(new String[] {pattern.substring(0, star), pattern.substring(star + 1)});
            return this;
        }

        /**
         * Allows every origin: {@code Access-Control-Allow-Origin: *}, or the caller's origin when
         * credentials are allowed too.
         *
         * @return this builder
         */
        public Builder allowAnyOrigin() {
            anyOrigin = true;
            return this;
        }

        /**
         * The methods a preflight may ask for, replacing the default GET, HEAD and POST.
         *
         * @param names method names, case-sensitive as HTTP methods are
         * @return this builder
         */
        public Builder allowMethods(String... names) {
            if (!methodsSet) {
                methods.clear();
                methodsSet = true;
            }
            for (String n : names) {
                methods.add(Objects.requireNonNull(n, "method"));
            }
            return this;
        }

        /**
         * Request headers a preflight may ask for, beyond the CORS-safelisted ones.
         *
         * @param names header names, compared case-insensitively
         * @return this builder
         */
        public Builder allowHeaders(String... names) {
            for (String n : names) {
                headers.add(Objects.requireNonNull(n, "header"));
            }
            return this;
        }

        /**
         * Allows whatever request headers a preflight asks for.
         *
         * @return this builder
         */
        public Builder allowAnyHeader() {
            anyHeader = true;
            return this;
        }

        /**
         * Response headers the page may read, beyond the CORS-safelisted ones.
         *
         * @param names header names
         * @return this builder
         */
        public Builder exposeHeaders(String... names) {
            for (String n : names) {
                exposed.add(Objects.requireNonNull(n, "header"));
            }
            return this;
        }

        /**
         * Lets pages send credentials (cookies, HTTP authentication) and read the answers:
         * {@code Access-Control-Allow-Credentials: true}, and the origin named, never {@code *}.
         *
         * @return this builder
         */
        public Builder allowCredentials() {
            credentials = true;
            return this;
        }

        /**
         * How long a browser may cache a preflight's answer.
         *
         * @param age at least zero; sent in whole seconds
         * @return this builder
         */
        public Builder maxAge(Duration age) {
            if (age.isNegative()) {
                throw new IllegalArgumentException("max-age must not be negative: " + age);
            }
            maxAge = age;
            return this;
        }

        /**
         * {@return the filter}
         *
         * @throws IllegalStateException if no origin is allowed
         */
        public Cors build() {
            if (!anyOrigin && origins.isEmpty() && patterns.isEmpty()) {
                throw new IllegalStateException("a CORS filter needs an allowed origin: allowOrigin, allowOriginPattern or allowAnyOrigin");
            }
            return new Cors(this);
        }
    }
}
