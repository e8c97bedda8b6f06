package dev.spindle.core;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Maps method and path to a handler. Static segments and {@code {name}} variables; HEAD is served
 * by the GET route without a body; a known path with the wrong method is 405 with {@code Allow};
 * anything else is 404. Immutable and shared by every connection.
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
        try {
            return (req.route != null ? req.route : route(req)).blocking;
        } catch (HttpException e) {
            return false;
        }
    }

    /**
     * Routes and runs a request outside a {@link Connection}, for adapters to other HTTP stacks:
     * fills {@code res} with the handler's answer, or with the 404/405/500 (or the thrown
     * {@link HttpException}'s status) a connection would send. Framing headers stay the caller's.
     */
    public void handle(Request req, Response res) {
        res.reset();
        try {
            Route r = req.route != null ? req.route : route(req);
            r.handler.handle(req, res);
        } catch (HttpException e) {
            res.reset();
            if (e instanceof MethodNotAllowed m) {
                res.header("Allow", m.allow);
            }
            res.status(e.status()).text(e.status() + " " + HttpStatus.reason(e.status()) + ": " + e.getMessage() + "\n");
        } catch (Throwable e) {
            org.slf4j.LoggerFactory.getLogger(Router.class).warn("handler for {} failed", req, e);
            res.reset();
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
