package dev.spindle.core;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Maps method and path to a handler. Static segments, {@code {name}} variables (one segment) and a
 * last {@code {name...}} tail variable ({@code /static/{path...}} matches {@code /static/} and
 * everything below it, slashes included); routes are tried in the order they were added. HEAD is
 * served by the GET route without a body; a known path with the wrong method is 405 with
 * {@code Allow}; anything else is 404. Immutable and shared by every connection.
 */
public final class Router {
    private final Route[] routes;

    private Router(List<Route> routes) {
        this.routes = routes.toArray(Route[]::new);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Whether the request's route is marked {@link Handler#blocking}, for adapters to other HTTP
     * stacks that must run it off their event loop. False when nothing matches.
     */
    public boolean isBlocking(Request req) {
        Route r = routeOrNull(req);
        return r != null && r.blocking;
    }

    /** Whether the request's route is {@link Handler#async asynchronous}. False when nothing matches. */
    public boolean isAsync(Request req) {
        Route r = routeOrNull(req);
        return r != null && r.async != null;
    }

    /**
     * Whether the request's handler takes its body as a stream (blocking and asynchronous routes),
     * so an adapter should hand it over before the body has arrived. False when nothing matches.
     */
    public boolean streamsBody(Request req) {
        Route r = routeOrNull(req);
        return r != null && r.streamsBody;
    }

    private Route routeOrNull(Request req) {
        try {
            return req.route != null ? req.route : route(req);
        } catch (HttpException e) {
            return null;
        }
    }

    /**
     * Routes and runs a request outside a {@link Connection}, for adapters to other HTTP stacks:
     * fills {@code res} with the handler's answer, or with the 404/405/500 (or the thrown
     * {@link HttpException}'s status) a connection would send. Framing headers stay the caller's.
     * An asynchronous handler is waited for, so call this only where blocking is allowed.
     */
    public void handle(Request req, Response res) {
        res.reset();
        try {
            Route r = req.route != null ? req.route : route(req);
            r.handler.handle(req, res);
        } catch (Throwable e) {
            failed(req, res, e);
        }
    }

    /**
     * Starts the request's handler on the caller's thread and completes when its response is final:
     * at once for inline and blocking handlers, when the stage completes for asynchronous ones.
     * Failures become error responses as in {@link #handle}; the returned stage never fails.
     */
    public CompletionStage<Void> handleAsync(Request req, Response res) {
        res.reset();
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            Route r = req.route != null ? req.route : route(req);
            if (r.async == null) {
                r.handler.handle(req, res);
                done.complete(null);
                return done;
            }
            CompletionStage<?> stage = r.async.handle(req, res);
            if (stage == null) {
                done.complete(null);
                return done;
            }
            stage.whenComplete((value, failure) -> {
                if (failure != null) {
                    failed(req, res, unwrap(failure));
                }
                done.complete(null);
            });
        } catch (Throwable e) {
            failed(req, res, e);
            done.complete(null);
        }
        return done;
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static void failed(Request req, Response res, Throwable e) {
        res.reset();
        if (e instanceof HttpException h) {
            if (e instanceof MethodNotAllowed m) {
                res.header("Allow", m.allow);
            }
            res.status(h.status()).text(h.status() + " " + HttpStatus.reason(h.status()) + ": " + h.getMessage() + "\n");
        } else {
            org.slf4j.LoggerFactory.getLogger(Router.class).warn("handler for {} failed", req, e);
            res.status(500).text("500 Internal Server Error: the handler failed\n");
        }
    }

    /**
     * Finds the route for a parsed request and stores it with its variables in the request.
     *
     * @throws HttpException 404 or 405 (with the allowed methods in the message)
     */
    Route route(Request req) {
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
        if (pathMatch == null) {
            throw new HttpException(404, "no route for " + req.path());
        }
        throw new MethodNotAllowed(allowed(req));
    }

    private String allowed(Request req) {
        Set<String> methods = new LinkedHashSet<>();
        int[] scratch = new int[16];
        for (Route r : routes) {
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
    }

    public static final class Builder {
        private final List<Route> routes = new ArrayList<>();

        private Builder() {
        }

        public Builder get(String pattern, Handler handler) {
            return route("GET", pattern, handler);
        }

        public Builder post(String pattern, Handler handler) {
            return route("POST", pattern, handler);
        }

        public Builder put(String pattern, Handler handler) {
            return route("PUT", pattern, handler);
        }

        public Builder delete(String pattern, Handler handler) {
            return route("DELETE", pattern, handler);
        }

        /** Any method token, e.g. {@code PATCH} or an extension method. */
        public Builder route(String method, String pattern, Handler handler) {
            Objects.requireNonNull(handler, "handler");
            routes.add(new Route(Objects.requireNonNull(method, "method"), Objects.requireNonNull(pattern, "pattern"), handler));
            return this;
        }

        public Router build() {
            return new Router(routes);
        }
    }
}
