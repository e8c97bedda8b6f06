// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.exchange.HandlerRunner;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * What a route runs when its router has filters or exception mappers: the filters around the
 * handler, with exceptions turned into responses inside the chain so that every filter sees the
 * final status. The composed handler has the kind of the one it wraps (inline, blocking, async).
 */
final class Pipeline {
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final Filter[] filters;
    private final Map<Class<?>, ExceptionMapper<?>> mappers;
    private final boolean problemDetails;

    Pipeline(Filter[] filters, Map<Class<?>, ExceptionMapper<?>> mappers, boolean problemDetails) {
        this.filters = filters;
        this.mappers = mappers;
        this.problemDetails = problemDetails;
    }

    /** Whether there is anything to run around a refusal: a filter or a mapper. */
    boolean decorates() {
        return filters.length > 0 || !mappers.isEmpty();
    }

    /**
     * Runs the filters around the connection's refusal of {@code req}, answered as {@code refused}
     * raised by a handler (so the mappers shape it).
     *
     * @return whether the chain finished at once; if not, {@code res} must not be sent
     */
    boolean refusal(Request req, Response res, HttpException refused) {
        boolean[] live = {true};
        CompletionStage<Void> done = step(0, req, res, () -> {
            if (live[0]) {
                failed(refused, req, res, res.headerCount());
            }
            return DONE;
        });
        live[0] = false;
        return done.toCompletableFuture().isDone();
    }

    Handler compose(Handler handler) {
        if (handler instanceof Handler.AsyncHandler a) {
            Handler.Async inner = a.delegate();
            return Handler.async((req, res) -> step(0, req, res, () -> terminal(inner, req, res)));
        }
        if (handler instanceof Handler.Blocking b) {
            Handler inner = b.delegate();
            return Handler.blocking((req, res) -> step(0, req, res, () -> terminal(inner, req, res)).toCompletableFuture().join());
        }
        return (req, res) -> {
            CompletionStage<Void> done = step(0, req, res, () -> terminal(handler, req, res));
            if (!done.toCompletableFuture().isDone()) {
                throw new IllegalStateException("a filter around an inline route returned a stage that is not complete;"
                        + " make the route asynchronous (Handler.async) to finish later");
            }
        };
    }

    private CompletionStage<Void> step(int i, Request req, Response res, Supplier<CompletionStage<Void>> terminal) {
        if (i == filters.length) {
            return terminal.get();
        }
        int headers = res.headerCount();
        CompletionStage<?> stage;
        try {
            stage = filters[i].filter(req, res, () -> step(i + 1, req, res, terminal));
        } catch (Throwable t) {
            failed(t, req, res, headers);
            return DONE;
        }
        return settle(stage, req, res, headers);
    }

    private CompletionStage<Void> terminal(Handler handler, Request req, Response res) {
        int headers = res.headerCount();
        try {
            handler.handle(req, res);
        } catch (Throwable t) {
            failed(t, req, res, headers);
        }
        return DONE;
    }

    private CompletionStage<Void> terminal(Handler.Async handler, Request req, Response res) {
        int headers = res.headerCount();
        CompletionStage<?> stage;
        try {
            stage = handler.handle(req, res);
        } catch (Throwable t) {
            failed(t, req, res, headers);
            return DONE;
        }
        return settle(stage, req, res, headers);
    }

    /** A stage that completes normally once {@code stage} has, its failure answered. */
    private CompletionStage<Void> settle(CompletionStage<?> stage, Request req, Response res, int headers) {
        if (stage == null || stage instanceof CompletableFuture<?> f && f.isDone() && !f.isCompletedExceptionally()) {
            return DONE;
        }
        return stage.handle((value, failure) -> {
            if (failure != null) {
                failed(HandlerRunner.unwrap(failure), req, res, headers);
            }
            return null;
        });
    }

    /**
     * Answers a failure: the mapper registered for its class or nearest superclass, else the
     * default. The first {@code headers} header fields, set before the failed step ran, are kept.
     * A body that broke on the wire is answered as an {@link HttpException} with its status, which
     * the mapper cannot change.
     */
    @SuppressWarnings("unchecked")
    void failed(Throwable failure, Request req, Response res, int headers) {
        HttpException broken = Router.bodyFailure(req, failure);
        if (broken != null) {
            failure = broken;
        }
        ExceptionMapper<Throwable> mapper = null;
        for (Class<?> c = failure.getClass(); c != null && mapper == null; c = c.getSuperclass()) {
            mapper = (ExceptionMapper<Throwable>) mappers.get(c);
        }
        res.state.closeStreamedBody();
        res.state.resetKeepingHeaders(headers);
        if (mapper != null) {
            Router.startFailureAnswer(res, failure);
            try {
                mapper.map(failure, req, res);
                if (broken != null) {
                    res.status(broken.status());
                }
                req.state.failure = failure;
                return;
            } catch (Throwable again) {
                again.addSuppressed(failure);
                failure = again;
                res.state.closeStreamedBody();
                res.state.resetKeepingHeaders(headers);
            }
        }
        req.state.failure = failure;
        Router.fillFailure(req, res, failure, problemDetails);
    }
}
