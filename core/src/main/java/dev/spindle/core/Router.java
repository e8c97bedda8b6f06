// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.exchange.BodyException;
import dev.spindle.core.exchange.HttpStatus;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.Route;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Maps method and path to a handler. Static segments, {@code {name}} variables (one segment) and a
 * last {@code {name...}} tail variable ({@code /static/{path...}} matches {@code /static/} and
 * everything below it, slashes included); routes are tried in the order they were added. HEAD is
 * served by the GET route without a body; a known path with the wrong method is 405 with
 * {@code Allow}; anything else is 404. Immutable and shared by every connection.
 */
public final class Router {
    private final Route[] routes;
    /** Answer requests no route matches, when filters, mappers or a custom 404/405 apply to them; else null. */
    private final Route notFound;
    private final Route methodNotAllowed;
    /** The filters and mappers that also decorate refusals, or null when there are none. */
    private final Pipeline pipeline;
    /** Who hears of every exchange's end, or null. */
    final ExchangeListener[] listeners;
    /** Error answers are RFC 9457 problem details ({@code application/problem+json}), not plain text. */
    final boolean problemDetails;
    private final Health health;
    /** Some route speaks WebSocket: connections must be able to switch protocols. */
    boolean webSockets;

    private Router(List<Route> routes, Route notFound, Route methodNotAllowed, JsonCodec json, Pipeline pipeline,
            List<ExchangeListener> listeners, boolean problemDetails, Map<Class<?>, java.util.function.Function<String, ?>> converters,
            Compression compression, Health health) {
        this.routes = routes.toArray(Route[]::new);
        this.health = health;
        this.notFound = notFound;
        this.methodNotAllowed = methodNotAllowed;
        this.pipeline = pipeline;
        this.listeners = listeners.isEmpty() ? null : listeners.toArray(ExchangeListener[]::new);
        this.problemDetails = problemDetails;
        for (Route r : this.routes) {
            r.json = json;
            r.converters = converters;
            r.compression = effective(r.options.compression() != null ? r.options.compression() : compression);
        }
        if (notFound != null) {
            notFound.json = json;
            methodNotAllowed.json = json;
            notFound.converters = converters;
            methodNotAllowed.converters = converters;
            notFound.compression = effective(compression);
            methodNotAllowed.compression = effective(compression);
        }
    }

    /** Null for no compression, so a route without it costs one check per answer. */
    private static Compression effective(Compression c) {
        return c == null || c.encodings().isEmpty() ? null : c;
    }

    /**
     * Starts a router: add routes, filters, exception mappers and a JSON codec to the builder, then
     * {@link Builder#build() build} it once, before the server starts.
     *
     * @return a new, empty builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The health this router mounts ({@link Builder#health(String, Health)}): a server serving the
     * router turns its readiness down when it begins to close.
     *
     * @return the health, or null when the router mounts none
     */
    public Health health() {
        return health;
    }

    /** The default answer to a failure: an {@link HttpException}'s status and message, else 500 (logged). */
    static void answerFailure(Router router, Request req, Response res, Throwable e) {
        res.state.closeStreamedBody();
        res.state.reset();
        fillFailure(req, res, e, router != null && router.problemDetails);
    }

    /** {@link #answerFailure} into a response already cleared. */
    static void fillFailure(Request req, Response res, Throwable e, boolean problemDetails) {
        HttpException broken = req == null ? null : bodyFailure(req, e);
        if (broken != null) {
            e = broken;
        }
        if (e instanceof HttpException h) {
            h.addRequiredHeaders(res);
            errorBody(res.status(h.status()), h.status(), h.getMessage(), problemDetails);
        } else {
            org.slf4j.LoggerFactory.getLogger(Router.class).warn("handler for {} failed", req, e);
            errorBody(res.status(500), 500, "the handler failed", problemDetails);
        }
    }

    /**
     * An error answer's body: {@code <status> <reason>: <detail>} as text, or an RFC 9457 problem
     * details object ({@code type} about:blank, its {@code title} the reason phrase).
     */
    static void errorBody(Response res, int status, String detail, boolean problemDetails) {
        String reason = HttpStatus.reason(status);
        if (!problemDetails) {
            res.text(status + " " + reason + ": " + detail + "\n");
            return;
        }
        StringBuilder json = new StringBuilder(64 + detail.length()).append("{\"type\":\"about:blank\",\"title\":");
        json.append(Json.quote(reason));
        json.append(",\"status\":").append(status).append(",\"detail\":");
        json.append(Json.quote(detail));
        res.contentType("application/problem+json").body(json.append('}').toString());
    }

    /**
     * Fills {@code res} with the connection's refusal of a request ({@code e}: 400, 408, 413, 414,
     * 431, 503 ...). A request whose head was read passes the filters and the exception mappers,
     * which may add headers and shape the body as for a routed answer; the status stays the
     * refusal's. A filter that does not finish at once (it waits for something) forfeits that: the
     * default answer goes instead, into {@code fallback}.
     *
     * @param req the refused request, or null when its head was not read
     * @return the response to send: {@code res}, or {@code fallback}
     */
    Response refusal(Request req, Response res, Response fallback, HttpException e) {
        if (req != null && pipeline != null && pipeline.decorates() && pipeline.refusal(req, res, e)) {
            res.status(e.status());
            return res;
        }
        fillFailure(null, fallback, e, problemDetails);
        return fallback;
    }

    /**
     * The failure to answer when the request's streamed body broke on the wire with a status (413,
     * 408, 400): whatever the handler threw once its body failed (the stream's exception, wrapped
     * or not), the answer is that status, with what was thrown as the cause. Null otherwise.
     */
    static HttpException bodyFailure(Request req, Throwable thrown) {
        BodyException broken = req.state.streamed == null ? null : req.state.streamed.failure();
        if (broken == null || broken.status <= 0) {
            return null;
        }
        if (thrown instanceof HttpException h && h.status() == broken.status) {
            return h;
        }
        return new HttpException(broken.status, broken.getMessage(), thrown);
    }

    /**
     * What a mapper starts from: the default answer's status (an {@link HttpException}'s, else 500)
     * and the headers that status requires, without its body.
     */
    static void startFailureAnswer(Response res, Throwable failure) {
        if (failure instanceof HttpException h) {
            res.status(h.status());
            h.addRequiredHeaders(res);
        } else {
            res.status(500);
        }
    }

    /**
     * Finds the route for a parsed request and stores it with its variables in the request.
     *
     * @throws HttpException 404 or 405 (with the allowed methods in the message)
     */
    Route route(RequestState req) {
        MemorySegment d = req.data;
        Route pathMatch = null;
        for (Route r : routes) {
            if (r.accepts(req) && r.matches(d, req.array, req.base, req.pathStart, req.pathEnd, req.params)) {
                req.route = r;
                return r;
            }
        }
        if (req.method == Method.HEAD) {
            for (Route r : routes) {
                if (r.knownMethod == Method.GET && r.matches(d, req.array, req.base, req.pathStart, req.pathEnd, req.params)) {
                    req.route = r;
                    return r;
                }
            }
        }
        for (Route r : routes) {
            if (r.matches(d, req.array, req.base, req.pathStart, req.pathEnd, req.params)) {
                pathMatch = r;
                break;
            }
        }
        if (notFound != null) {
            req.route = pathMatch == null ? notFound : methodNotAllowed;
            return req.route;
        }
        if (pathMatch == null) {
            throw new HttpException(404, "no route for " + req.api.path());
        }
        throw new MethodNotAllowed(allowed(routes, req));
    }

    private static String allowed(Route[] routes, RequestState req) {
        Set<String> methods = new LinkedHashSet<>();
        int[] scratch = new int[16];
        for (Route r : routes) {
            // a CONNECT to a path is an HTTP/2 extended CONNECT (RFC 8441): no HTTP/1.1 request can make one
            if (r.knownMethod == Method.CONNECT && req.version != RequestState.HTTP_2) {
                continue;
            }
            if (r.matches(req.data, req.array, req.base, req.pathStart, req.pathEnd, scratch)) {
                methods.add(r.method);
                if (r.knownMethod == Method.GET) {
                    methods.add("HEAD");
                }
            }
        }
        return String.join(", ", methods);
    }

    /** 405 carrying the value of the {@code Allow} header. */
    static final class MethodNotAllowed extends HttpException {
        private static final long serialVersionUID = 1L;
        final String allow;

        MethodNotAllowed(String allow) {
            super(405, "method not allowed; allowed: " + allow);
            this.allow = allow;
        }

        @Override
        void addRequiredHeaders(Response response) {
            response.header("Allow", allow);
        }
    }

    /** 415 for a request body in a content coding not undone, naming those that are (RFC 9110 15.5.16). */
    static final class UnsupportedEncoding extends HttpException {
        private static final long serialVersionUID = 1L;
        final String accepted;

        UnsupportedEncoding(String accepted) {
            super(415, "the request body's content coding is not one of " + accepted);
            this.accepted = accepted;
        }

        @Override
        void addRequiredHeaders(Response response) {
            response.header("Accept-Encoding", accepted);
        }
    }

    /**
     * Collects routes, filters, exception mappers, the 404 and 405 answers and the JSON codec, then
     * {@link #build() builds} the router. Every method returns this builder, for chaining. Not
     * thread-safe: configure it on one thread, at start-up.
     */
    public static final class Builder {
        private final List<Route> routes = new ArrayList<>();
        private final List<Handler> handlers = new ArrayList<>();
        private final List<Filter> filters = new ArrayList<>();
        private final Map<Class<?>, ExceptionMapper<?>> mappers = new LinkedHashMap<>();
        private Handler notFound;
        private Handler methodNotAllowed;
        private JsonCodec json;
        private final List<ExchangeListener> listeners = new ArrayList<>();
        private boolean problemDetails;
        private final Map<Class<?>, java.util.function.Function<String, ?>> converters = new LinkedHashMap<>();
        private Compression compression;
        private Health health;
        private boolean webSockets;

        private Builder() {
        }

        /**
         * Adds a WebSocket route (RFC 6455) with {@link WebSocket.Options#defaults()}; see
         * {@link #websocket(String, WebSocket.Endpoint, WebSocket.Options)}.
         *
         * @param pattern the path pattern, such as {@code /chat/{room}}
         * @param endpoint what handles the messages of every socket opened here, not null
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder websocket(String pattern, WebSocket.Endpoint endpoint) {
            return websocket(pattern, endpoint, WebSocket.Options.defaults());
        }

        /**
         * Adds a WebSocket route: a GET to {@code pattern} that asks to upgrade (RFC 6455 4.2) is
         * answered {@code 101 Switching Protocols}, and the connection then speaks WebSocket, its
         * messages going to {@code endpoint}; any other request to it is answered 426 (or 400 for a
         * malformed handshake). The router's filters run around the handshake, so they can refuse it
         * (an authentication filter's 401) or add header fields to the 101. Over HTTP/1.1, with and
         * without TLS, on every server; over HTTP/2 the same route answers an extended
         * {@code CONNECT} with {@code :protocol websocket} (RFC 8441) with 200, and the socket is
         * that stream.
         *
         * @param pattern the path pattern, such as {@code /chat/{room}}; the socket's
         *        {@link WebSocket#request()} reads its path parameters
         * @param endpoint what handles the messages of every socket opened here, not null
         * @param options the sockets' limits, timeouts, sub-protocols and compression, not null
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder websocket(String pattern, WebSocket.Endpoint endpoint, WebSocket.Options options) {
            Objects.requireNonNull(endpoint, "endpoint");
            Objects.requireNonNull(options, "options");
            webSockets = true;
            WebSocketRoute handshake = new WebSocketRoute(endpoint, options);
            // over HTTP/2 a socket opens with an extended CONNECT to the same path (RFC 8441 4)
            route("CONNECT", pattern, handshake);
            return route("GET", pattern, handshake);
        }

        /**
         * Compresses the answers of every route (a route's own {@link RouteOptions#compression}
         * wins): {@code .compression(Compression.defaults())} for gzip and deflate, negotiated from
         * {@code Accept-Encoding}; see {@link Compression} for what is compressed and how. Without
         * it nothing is compressed and nothing is added per request. A second call replaces the first.
         *
         * @param compression how answers are compressed, not null ({@link Compression#none()} for not at all)
         * @return this builder
         */
        public Builder compression(Compression compression) {
            this.compression = Objects.requireNonNull(compression, "compression");
            return this;
        }

        /**
         * The codec behind {@link Request#bodyAs(Class)} and {@link Response#json(Object)} on this router's routes.
         * Without one, both throw {@link IllegalStateException}; a second call replaces the first.
         *
         * @param codec the adapter to the application's JSON library, not null
         * @return this builder
         */
        public Builder json(JsonCodec codec) {
            json = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /**
         * Adds a filter around every exchange that reaches routing (see {@link Filter}); filters
         * run in the order added, the first outermost. With none, routes run exactly as added.
         *
         * @param filter the filter, not null; one instance serves every connection, so it must be thread-safe
         * @return this builder
         */
        public Builder filter(Filter filter) {
            filters.add(Objects.requireNonNull(filter, "filter"));
            return this;
        }

        /**
         * Answers exceptions of {@code type} (and its subclasses, unless one of them has its own
         * mapper) thrown by handlers and filters, including the {@link HttpException}s the router
         * raises: 404, 405, a static file's 404 (when no {@link #notFound} handler is set) and 416,
         * a body the codec cannot read ({@link BodyDecodingException}). A mapper reshapes the answer;
         * what it may change is set out in {@link ExceptionMapper}: the response it gets starts with
         * the default answer's status and required headers ({@code Allow}, {@code Content-Range}),
         * and a status the connection decided from the wire (a streamed body too large, late or
         * malformed: 413, 408, 400) stays whatever it sets. A mapper that throws is answered by the
         * default. Registering the same type again replaces its mapper.
         *
         * @param <T> the exception type
         * @param type the class of exceptions to answer, not null
         * @param mapper fills in the response for such an exception, not null
         * @return this builder
         */
        public <T extends Throwable> Builder exception(Class<T> type, ExceptionMapper<? super T> mapper) {
            mappers.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(mapper, "mapper"));
            return this;
        }

        /**
         * How typed parameters of {@code type} are read ({@link Request#pathParam(String, Class)},
         * {@link Request#queryParam(String, Class)}), replacing the built-in conversion if there is
         * one. What {@code parse} throws (or a null it returns) is answered 400, naming the
         * parameter and the type.
         *
         * @param <T> the type
         * @param type the type handlers ask for
         * @param parse turns a parameter's decoded text into a value
         * @return this builder
         */
        public <T> Builder converter(Class<T> type, java.util.function.Function<String, ? extends T> parse) {
            converters.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(parse, "parse"));
            return this;
        }

        /**
         * Adds a listener that hears of every exchange's end, refusals and timeouts included
         * ({@link ExchangeListener}); listeners are called in the order they were added. This is
         * where {@link AccessLog} and {@link ExchangeMetrics} go.
         *
         * @param listener the listener, not null
         * @return this builder
         */
        public Builder listener(ExchangeListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Makes every error answer the server writes itself (the default answers to exceptions, 404,
         * 405, and the connection's refusals: 400, 408, 413, 414, 431, 503) an RFC 9457 problem
         * details object, {@code application/problem+json}, such as
         * {@code {"type":"about:blank","title":"Content Too Large","status":413,"detail":"..."}},
         * instead of the plain-text {@code 413 Content Too Large: ...}. Answers made by exception
         * mappers are theirs.
         *
         * @return this builder
         */
        public Builder problemDetails() {
            problemDetails = true;
            return this;
        }

        /**
         * The answer when no route matches the path, or a {@link #staticFiles static route} has no
         * such file (default: 404 with a short text body). The handler starts with status 200: set
         * the status it should send. For a missing file it runs in the static route's place, inside
         * the same filters, and the static route takes this handler's kind (inline, blocking,
         * asynchronous).
         *
         * @param handler the handler of unmatched requests, not null; filters run around it
         * @return this builder
         */
        public Builder notFound(Handler handler) {
            notFound = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * The answer when a route matches the path but not the method; it starts with status 405
         * and the {@code Allow} header already set (default: that, with a short text body).
         *
         * @param handler the handler of requests with a wrong method, not null; filters run around it
         * @return this builder
         */
        public Builder methodNotAllowed(Handler handler) {
            methodNotAllowed = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Adds a GET route; see {@link #route(String, String, Handler)}. HEAD requests are served by it too, without the body.
         *
         * @param pattern the path pattern, such as {@code /users/{id}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder get(String pattern, Handler handler) {
            return route("GET", pattern, handler);
        }

        /**
         * Adds a GET route with options of its own, such as its compression; see
         * {@link #route(String, String, Handler, RouteOptions)}. HEAD requests are served by it too.
         *
         * @param pattern the path pattern, such as {@code /users/{id}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @param options what the route changes of the server's settings, not null
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder get(String pattern, Handler handler, RouteOptions options) {
            return route("GET", pattern, handler, options);
        }

        /**
         * Adds a POST route; see {@link #route(String, String, Handler)}.
         *
         * @param pattern the path pattern, such as {@code /users/{id}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder post(String pattern, Handler handler) {
            return route("POST", pattern, handler);
        }

        /**
         * Adds a POST route with options of its own, such as its body limit; see
         * {@link #route(String, String, Handler, RouteOptions)}.
         *
         * @param pattern the path pattern, such as {@code /users/{id}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @param options what the route changes of the server's settings, not null
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder post(String pattern, Handler handler, RouteOptions options) {
            return route("POST", pattern, handler, options);
        }

        /**
         * Adds a PUT route with options of its own, such as its body limit; see
         * {@link #route(String, String, Handler, RouteOptions)}.
         *
         * @param pattern the path pattern, such as {@code /users/{id}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @param options what the route changes of the server's settings, not null
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder put(String pattern, Handler handler, RouteOptions options) {
            return route("PUT", pattern, handler, options);
        }

        /**
         * Adds a PUT route; see {@link #route(String, String, Handler)}.
         *
         * @param pattern the path pattern, such as {@code /users/{id}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder put(String pattern, Handler handler) {
            return route("PUT", pattern, handler);
        }

        /**
         * Adds a DELETE route; see {@link #route(String, String, Handler)}.
         *
         * @param pattern the path pattern, such as {@code /users/{id}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder delete(String pattern, Handler handler) {
            return route("DELETE", pattern, handler);
        }

        /**
         * Serves {@code files} under {@code prefix} ({@code "/assets"}, or {@code "/"} for the whole
         * tree): a GET route {@code <prefix>/{path...}}, so HEAD works too. See {@link StaticFiles}.
         *
         * @param prefix the path the files appear under: starts with {@code /} and does not end with one, unless it is {@code "/"}
         * @param files the files to serve
         * @return this builder
         * @throws IllegalArgumentException if the prefix is not of that form
         */
        public Builder staticFiles(String prefix, StaticFiles files) {
            return staticFiles(prefix, files, RouteOptions.defaults());
        }

        /**
         * Serves {@code files} under {@code prefix} as {@link #staticFiles(String, StaticFiles)}
         * does, with options of the route's own, such as its compression.
         *
         * @param prefix the path the files appear under: starts with {@code /} and does not end with one, unless it is {@code "/"}
         * @param files the files to serve
         * @param options what the route changes of the server's settings, not null
         * @return this builder
         * @throws IllegalArgumentException if the prefix is not of that form
         */
        public Builder staticFiles(String prefix, StaticFiles files, RouteOptions options) {
            return get(mountPoint(prefix, "static") + "/{" + StaticFiles.VARIABLE + "...}", files, options);
        }

        /**
         * Mounts {@code health}'s probes under {@code prefix} ({@code "/health"}, or {@code "/"}):
         * {@code GET <prefix>/live}, liveness, and {@code GET <prefix>/ready}, readiness (HEAD
         * too), answering 200 or 503 with a small JSON body as {@link Health} describes. The built
         * router knows this health ({@link Router#health()}), so a server serving it turns its
         * readiness down as soon as its close begins, before the drain and for its
         * {@link ServerConfig#drainDelay()}. Filters and listeners see the probes as any route.
         *
         * @param prefix the path the probes appear under: starts with {@code /} and does not end with one, unless it is {@code "/"}
         * @param health the liveness and readiness to answer, not null
         * @return this builder
         * @throws IllegalArgumentException if the prefix is not of that form
         * @throws IllegalStateException if this builder mounts a health already
         */
        public Builder health(String prefix, Health health) {
            Objects.requireNonNull(health, "health");
            String base = mountPoint(prefix, "health");
            if (this.health != null) {
                throw new IllegalStateException("a router mounts one Health");
            }
            this.health = health;
            get(base + "/live", health.liveness());
            return get(base + "/ready", health.readiness());
        }

        /** {@code prefix} as the start of a pattern: "" for "/", else itself, checked. */
        private static String mountPoint(String prefix, String what) {
            Objects.requireNonNull(prefix, "prefix");
            if (!prefix.startsWith("/") || prefix.length() > 1 && prefix.endsWith("/")) {
                throw new IllegalArgumentException("a " + what + " prefix starts with '/' and does not end with one: " + prefix);
            }
            return prefix.equals("/") ? "" : prefix;
        }

        /**
         * Any method token, e.g. {@code PATCH} or an extension method. The pattern starts with
         * {@code /}; each segment is a literal, matched exactly, or a whole-segment variable
         * {@code {name}}; the last may be a tail {@code {name...}}; at most 8 variables. Handlers
         * read the values with {@link Request#pathParam(String)}, percent-decoded.
         *
         * @param method the method token, case-sensitive ({@code "GET"} also answers HEAD)
         * @param pattern the path pattern, such as {@code /users/{id}} or {@code /files/{path...}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder route(String method, String pattern, Handler handler) {
            Objects.requireNonNull(handler, "handler");
            routes.add(new Route(Objects.requireNonNull(method, "method"), Objects.requireNonNull(pattern, "pattern"), handler));
            handlers.add(handler);
            return this;
        }

        /**
         * Adds a route, as {@link #route(String, String, Handler)}, with options of its own: e.g.
         * {@code RouteOptions.defaults().maxBodySize(1L << 30)} lets a streamed upload route take
         * 1 GiB while every other route keeps the server's {@link ServerConfig#maxBodySize()}. The
         * limit is checked when the header section has arrived (an announced length) and as a
         * chunked body arrives: 413 and a close.
         *
         * @param method the method token, case-sensitive ({@code "GET"} also answers HEAD)
         * @param pattern the path pattern, such as {@code /users/{id}} or {@code /files/{path...}}
         * @param handler what answers matching requests: a lambda, or {@link Handler#blocking} or {@link Handler#async}
         * @param options what the route changes of the server's settings, not null
         * @return this builder
         * @throws IllegalArgumentException if the pattern is malformed
         */
        public Builder route(String method, String pattern, Handler handler, RouteOptions options) {
            Objects.requireNonNull(handler, "handler");
            Objects.requireNonNull(options, "options");
            routes.add(new Route(Objects.requireNonNull(method, "method"), Objects.requireNonNull(pattern, "pattern"), handler,
                    options));
            handlers.add(handler);
            return this;
        }

        /**
         * Builds the router. With no filter, mapper or custom 404/405 registered, routes run their
         * handlers directly, with nothing added per request.
         *
         * @return the router, immutable and shared by every connection of a server
         */
        public Router build() {
            Router built = compose();
            built.webSockets = webSockets;
            return built;
        }

        private Router compose() {
            if (filters.isEmpty() && mappers.isEmpty() && notFound == null && methodNotAllowed == null) {
                return new Router(routes, null, null, json, null, listeners, problemDetails, Map.copyOf(converters), compression, health);
            }
            Pipeline pipeline = new Pipeline(filters.toArray(Filter[]::new), Map.copyOf(mappers), problemDetails);
            List<Route> composed = new ArrayList<>(routes.size());
            for (int i = 0; i < routes.size(); i++) {
                Route r = routes.get(i);
                Handler h = handlers.get(i);
                if (notFound != null && h instanceof StaticFiles files) {
                    h = files.orElse(notFound);
                }
                composed.add(new Route(r.method, r.pattern, pipeline.compose(h), r.options));
            }
            Handler missing = notFound != null ? notFound
                    : (req, res) -> {
                        throw new HttpException(404, "no route for " + req.path());
                    };
            Handler custom405 = methodNotAllowed;
            Route[] table = composed.toArray(Route[]::new);
            Handler wrongMethod = (req, res) -> {
                String allow = allowed(table, req.state);
                if (custom405 == null) {
                    throw new MethodNotAllowed(allow);
                }
                res.status(405).header("Allow", allow);
                custom405.handle(req, res);
            };
            return new Router(composed, Route.fallback(pipeline.compose(missing)), Route.fallback(pipeline.compose(wrongMethod)),
                    json, pipeline, listeners, problemDetails, Map.copyOf(converters), compression, health);
        }
    }
}
