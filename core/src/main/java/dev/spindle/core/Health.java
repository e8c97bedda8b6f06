// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Liveness and readiness, as load balancers and orchestrators probe them: is the process worth
 * keeping (liveness), and should it be sent traffic now (readiness).
 * {@link Router.Builder#health(String, Health)} mounts both, {@code GET <prefix>/live} and
 * {@code GET <prefix>/ready} (HEAD too), and lets the servers serving that router find it.
 *
 * <table>
 *   <caption>What the two handlers answer</caption>
 *   <tr><th>handler</th><th>200 when</th><th>503 when</th></tr>
 *   <tr><td>{@link #liveness()}</td><td>every liveness check is up (none: always)</td>
 *       <td>a liveness check is down; readiness and the drain never change it</td></tr>
 *   <tr><td>{@link #readiness()}</td><td>the application says it is ready ({@link #ready(boolean)},
 *       true by default), no server serving it has begun to close, and every readiness check is up</td>
 *       <td>any of these is not so</td></tr>
 * </table>
 * The body is a small JSON object, {@code {"status":"UP","checks":{"db":"UP"}}}, or
 * {@code {"status":"DOWN","checks":{"db":"DOWN"}}}; when readiness is down without running its
 * checks the object says why: {@code {"status":"DOWN","reason":"draining","checks":{}}} once a
 * server began to close, {@code "reason":"not ready"} after {@code ready(false)}. Every answer
 * carries {@code Cache-Control: no-store}, so no cache between the prober and the server keeps one.
 *
 * <p>A check is a {@link Supplier} of {@code Boolean}: true is up; false, null, an exception, or
 * no answer within {@link #timeout(Duration)} (default 1 s) is down. Checks run on virtual threads
 * of their own, never on the connection's thread, so a check may block (a database ping) without
 * holding an event loop; the checks of one probe run at once, and a probe arriving while a check
 * is still running shares that run instead of starting another, so a slow dependency costs one
 * thread per check, not one per probe. A check whose status changes is logged once: WARN when it
 * goes down (with the exception, if any), INFO when it is up again.
 *
 * <p>When a server serving the router begins to close ({@link HttpServer#close()}, SIGTERM), it
 * calls {@link #markDraining()} before anything else: readiness answers 503 from then on, for
 * good, while the server still serves for {@link ServerConfig#drainDelay()} so that a load
 * balancer probing readiness stops sending before the server stops accepting. One
 * {@code Health} belongs to one server: a second server sharing the router would report
 * draining when the first closes.
 *
 * <p>Thread-safe. Add the checks at start-up; {@link #ready(boolean)} may be called at any time.
 */
public final class Health {
    private static final Logger log = LoggerFactory.getLogger(Health.class);
    private static final String UP = "\"UP\"";
    private static final String DOWN = "\"DOWN\"";
    private static final byte[] ALL_UP = ascii("{\"status\":\"UP\",\"checks\":{}}");
    private static final byte[] DRAINING = ascii("{\"status\":\"DOWN\",\"reason\":\"draining\",\"checks\":{}}");
    private static final byte[] NOT_READY = ascii("{\"status\":\"DOWN\",\"reason\":\"not ready\",\"checks\":{}}");

    private final List<Check> readinessChecks = new CopyOnWriteArrayList<>();
    private final List<Check> livenessChecks = new CopyOnWriteArrayList<>();
    private final Handler liveness = Handler.async((req, res) -> answer(livenessChecks, res, false));
    private final Handler readiness = Handler.async((req, res) -> answer(readinessChecks, res, true));
    private volatile boolean ready = true;
    private volatile boolean draining;
    private volatile long timeoutNanos = TimeUnit.SECONDS.toNanos(1);

    /** Live and ready, with no checks: both handlers answer 200 until something says otherwise. */
    public Health() {
    }

    /**
     * Adds a readiness check: while it is down, {@link #readiness()} answers 503. For what the
     * application depends on to serve (a database, a downstream service, a cache warmed).
     *
     * @param name the check's name in the JSON body, unique among this health's readiness checks
     * @param check true when up; false, null, an exception or no answer within the timeout is down
     * @return this health
     * @throws IllegalArgumentException if a readiness check of that name exists
     */
    public Health check(String name, Supplier<Boolean> check) {
        return add(readinessChecks, name, check);
    }

    /**
     * Adds a liveness check: while it is down, {@link #liveness()} answers 503, which tells an
     * orchestrator to restart the process. Only for what a restart cures (a deadlock, a wedged
     * resource); a dependency that is down belongs in {@link #check}, else every instance is
     * restarted when it fails.
     *
     * @param name the check's name in the JSON body, unique among this health's liveness checks
     * @param check true when up; false, null, an exception or no answer within the timeout is down
     * @return this health
     * @throws IllegalArgumentException if a liveness check of that name exists
     */
    public Health livenessCheck(String name, Supplier<Boolean> check) {
        return add(livenessChecks, name, check);
    }

    private Health add(List<Check> checks, String name, Supplier<Boolean> check) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(check, "check");
        synchronized (checks) {
            for (Check c : checks) {
                if (c.name.equals(name)) {
                    throw new IllegalArgumentException("a check named " + name + " exists already");
                }
            }
            checks.add(new Check(name, check));
        }
        return this;
    }

    /**
     * How long a probe waits for a check; one that has not answered by then counts as down for
     * that probe (it runs on, and a later probe shares its run).
     *
     * @param timeout positive, not null; default 1 s
     * @return this health
     * @throws IllegalArgumentException if the timeout is not positive
     */
    public Health timeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the check timeout must be positive, got " + timeout);
        }
        timeoutNanos = timeout.toNanos();
        return this;
    }

    /**
     * Says whether the application is ready for traffic: false (while it warms up, or to take an
     * instance out of a balancer's rotation by hand) makes {@link #readiness()} answer 503 until it
     * is set true again. Liveness is not affected; nor is a drain undone.
     *
     * @param ready whether the application is ready; true by default
     * @return this health
     */
    public Health ready(boolean ready) {
        this.ready = ready;
        return this;
    }

    /**
     * Whether readiness may be up: the application said ready and no drain has begun. The checks
     * are not run.
     *
     * @return false after {@code ready(false)} or {@link #markDraining()}
     */
    public boolean isReady() {
        return ready && !draining;
    }

    /**
     * Turns readiness down for good: what a server serving this health's router does first when
     * it begins to close. An application may call it itself, ahead of closing, to leave a
     * balancer's rotation early.
     */
    public void markDraining() {
        if (!draining) {
            draining = true;
            log.debug("readiness DOWN: draining");
        }
    }

    /**
     * Whether {@link #markDraining()} was called.
     *
     * @return true once a drain has begun; it stays true
     */
    public boolean isDraining() {
        return draining;
    }

    /**
     * The liveness handler, which {@link Router.Builder#health(String, Health)} mounts at
     * {@code <prefix>/live}; or mount it on a route of the application's choice.
     *
     * @return an asynchronous handler answering 200 or 503 as the class describes
     */
    public Handler liveness() {
        return liveness;
    }

    /**
     * The readiness handler, which {@link Router.Builder#health(String, Health)} mounts at
     * {@code <prefix>/ready}. Mounted by hand on another route, it answers the same, but a server
     * finds the health only through the router's {@code health(...)}: without it, call
     * {@link #markDraining()} before closing.
     *
     * @return an asynchronous handler answering 200 or 503 as the class describes
     */
    public Handler readiness() {
        return readiness;
    }

    /** Fills {@code res} at once (null) when no check has to run, else once every check answered or timed out. */
    private CompletionStage<?> answer(List<Check> checks, Response res, boolean forReadiness) {
        if (forReadiness && (draining || !ready)) {
            send(res, false, draining ? DRAINING : NOT_READY);
            return null;
        }
        Check[] all = checks.toArray(Check[]::new);
        if (all.length == 0) {
            send(res, true, ALL_UP);
            return null;
        }
        long timeout = timeoutNanos;
        @SuppressWarnings("unchecked")
        CompletableFuture<Boolean>[] probes = new CompletableFuture[all.length];
        for (int i = 0; i < all.length; i++) {
            probes[i] = all[i].probe(timeout);
        }
        return CompletableFuture.allOf(probes).thenRun(() -> {
            if (forReadiness && (draining || !ready)) {
                send(res, false, draining ? DRAINING : NOT_READY);
                return;
            }
            boolean up = true;
            for (CompletableFuture<Boolean> probe : probes) {
                up &= probe.join();
            }
            StringBuilder json = new StringBuilder(40 + 24 * all.length).append("{\"status\":").append(up ? UP : DOWN)
                    .append(",\"checks\":{");
            for (int i = 0; i < all.length; i++) {
                json.append(i == 0 ? "" : ",").append(all[i].quotedName).append(':').append(probes[i].join() ? UP : DOWN);
            }
            send(res, up, json.append("}}").toString().getBytes(StandardCharsets.UTF_8));
        });
    }

    private static void send(Response res, boolean up, byte[] body) {
        res.status(up ? 200 : 503).header("Cache-Control", "no-store").contentType(Response.APPLICATION_JSON).body(body);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** One named check: its supplier, the run in progress (shared by the probes that arrive meanwhile), its last status. */
    private static final class Check {
        final String name;
        final String quotedName;
        final Supplier<Boolean> supplier;
        final String threadName;
        final AtomicReference<CompletableFuture<Outcome>> running = new AtomicReference<>();
        /** The status probes last reported, for logging changes only; null before the first. */
        private Boolean lastUp;

        Check(String name, Supplier<Boolean> supplier) {
            this.name = name;
            this.quotedName = Json.quote(name);
            this.supplier = supplier;
            this.threadName = "spindle-health-" + name;
        }

        /** This check's status for one probe: the run in progress or a new one, down if it takes longer than {@code timeoutNanos}. */
        CompletableFuture<Boolean> probe(long timeoutNanos) {
            // a copy, so this probe's timeout does not complete the run other probes share
            return shared().copy().completeOnTimeout(null, timeoutNanos, TimeUnit.NANOSECONDS).thenApply(outcome -> {
                if (outcome == null) {
                    changed(false, "no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", null);
                    return false;
                }
                changed(outcome.up(), outcome.why(), outcome.failure());
                return outcome.up();
            });
        }

        /** The run in progress, or a new one started on a virtual thread of its own. */
        private CompletableFuture<Outcome> shared() {
            while (true) {
                CompletableFuture<Outcome> run = running.get();
                if (run != null && !run.isDone()) {
                    return run;
                }
                CompletableFuture<Outcome> fresh = new CompletableFuture<>();
                if (running.compareAndSet(run, fresh)) {
                    Thread.ofVirtual().name(threadName).start(() -> run(fresh));
                    return fresh;
                }
            }
        }

        private void run(CompletableFuture<Outcome> result) {
            try {
                boolean up = Boolean.TRUE.equals(supplier.get());
                result.complete(new Outcome(up, up ? "" : "it answered false or null", null));
            } catch (Throwable e) {
                // a failing check is a down one; the probe still answers
                result.complete(new Outcome(false, "it threw", e));
            }
        }

        /** Logs a change of what the probes report; a late answer of a run that timed out changes nothing. */
        private synchronized void changed(boolean up, String why, Throwable failure) {
            if (lastUp != null && lastUp == up) {
                return;
            }
            if (up) {
                if (lastUp != null) {
                    log.info("health check {} is UP again", name);
                }
            } else {
                log.warn("health check {} is DOWN: {}", name, why, failure);
            }
            lastUp = up;
        }
    }

    /** What one run of a check found; {@code failure} is what it threw, if it did. */
    private record Outcome(boolean up, String why, Throwable failure) {
    }
}
