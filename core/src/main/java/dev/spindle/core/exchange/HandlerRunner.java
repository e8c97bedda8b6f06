// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.HttpException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs handlers the way their routes ask: inline on the connection's thread, blocking ones on the
 * executor it is given (an event loop's, or a virtual thread each for a blocking server's
 * connection; inline when there is none, for a connection no handler could wake), and
 * asynchronous ones started inline and finished by their stage. Inline and asynchronous handlers
 * on an event loop are watched for blocking it ({@link LoopWatch}). It knows nothing of the wire
 * protocol: the connection hands it requests and answers what it leaves in the {@link Exchange}.
 */
public final class HandlerRunner {
    private final Executor blockingExecutor;
    private final Runnable wakeup;
    /** The blocked-loop threshold, or 0 when handlers are not watched (disabled, or they run on the connection's own thread). */
    private final long blockedLoopNanos;
    /** The watch of the loop thread this connection's handlers last ran on, or null. */
    private LoopWatch loopWatch;

    /**
     * @param blockingExecutor where blocking handlers run; null runs them inline
     * @param wakeup called from any thread when a handler finished off the connection's thread
     * @param blockedLoopNanos how long an inline handler may hold an event loop before it is reported; 0 for never
     */
    public HandlerRunner(Executor blockingExecutor, Runnable wakeup, long blockedLoopNanos) {
        this.blockingExecutor = blockingExecutor;
        this.wakeup = wakeup;
        this.blockedLoopNanos = blockingExecutor != null ? blockedLoopNanos : 0;
    }

    /** Whether a route's handler runs off the connection's thread or finishes later, so it needs an {@link Exchange}. */
    public boolean deferred(Route route) {
        return route.async != null || route.blocking && blockingExecutor != null;
    }

    /** Whether {@link #start} runs a route's handler on this thread, until it returns. */
    public boolean runsHere(Route route) {
        return route.async == null && blockingExecutor == null;
    }

    /** Whether a route's handler can read its body as it arrives; else (run inline, on a test's connection) it gets it buffered. */
    public boolean canStream(Route route) {
        return route.async != null || blockingExecutor != null;
    }

    /**
     * Runs an inline handler now, on this thread.
     *
     * @return what it threw, or null
     */
    public Throwable runInline(Route route, RequestState req, ResponseState res) {
        LoopWatch watch = loopWatch();
        if (watch != null) {
            watch.enter(route, blockedLoopNanos);
        }
        try {
            route.handler.handle(req.api, res.api);
            return null;
        } catch (Throwable t) {
            return t;
        } finally {
            if (watch != null) {
                watch.exit();
            }
        }
    }

    /**
     * Starts a handler that owns an {@link Exchange}: asynchronous, blocking on the executor, or
     * (a blocking handler with a streamed body and no executor) inline until it returns.
     */
    public void start(Route route, Exchange ex) {
        if (route.async != null) {
            startAsync(route, ex);
        } else if (blockingExecutor != null) {
            offload(route, ex);
        } else {
            run(route, ex);
        }
    }

    private void offload(Route route, Exchange ex) {
        try {
            blockingExecutor.execute(() -> {
                run(route, ex);
                wakeup.run();
            });
        } catch (RejectedExecutionException e) {
            ex.failure = new HttpException(503, "server is shutting down");
            ex.keepAlive = false;
            ex.done = true;
        }
    }

    private static void run(Route route, Exchange ex) {
        try {
            route.handler.handle(ex.request.api, ex.response.api);
        } catch (Throwable t) {
            ex.failure = t;
        }
        ex.done = true;
    }

    private void startAsync(Route route, Exchange ex) {
        CompletionStage<?> stage;
        // an asynchronous handler starts on the loop too, and must not block it either
        LoopWatch watch = loopWatch();
        if (watch != null) {
            watch.enter(route, blockedLoopNanos);
        }
        try {
            stage = route.async.handle(ex.request.api, ex.response.api);
        } catch (Throwable t) {
            ex.failure = t;
            ex.done = true;
            return;
        } finally {
            if (watch != null) {
                watch.exit();
            }
        }
        if (stage == null) {
            ex.done = true;
            return;
        }
        stage.whenComplete((value, failure) -> {
            ex.failure = failure == null ? null : unwrap(failure);
            ex.done = true;
            if (!ex.abandoned) {
                wakeup.run();
            }
        });
    }

    /** The blocked-loop watch of the current thread when handlers run on an event loop and the detector is on, else null. */
    private LoopWatch loopWatch() {
        if (blockedLoopNanos == 0) {
            return null;
        }
        LoopWatch watch = loopWatch;
        if (watch == null || watch.thread != Thread.currentThread()) {
            watch = LoopWatch.ofCurrentThread(blockedLoopNanos);
            loopWatch = watch;
        }
        return watch;
    }

    /**
     * The failure inside the wrappers a stage or a future adds.
     *
     * @param t what a stage completed with
     * @return the first cause that is not a {@code CompletionException} or {@code ExecutionException}
     */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
