// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocked-loop detector, in the spirit of Vert.x's {@code BlockedThreadChecker}: each event
 * loop or ring thread that runs handlers has one watch, which the connection marks around every
 * handler it runs on the loop ({@link #enter}, {@link #exit}: a release store of a counter each,
 * plain stores on x86, no allocation, no clock read). One daemon thread, started with the first watch
 * and ending with the last, samples them: a handler seen running the same run for longer than the
 * server's {@link ServerConfig#blockedLoopThreshold()} gets one WARN, naming its route and showing
 * the loop thread's stack taken while it is still blocked, and no more for that run.
 *
 * <p>The checker only knows when it first saw a run, so it reports "at least" that long; it sees a
 * run that lasts the threshold plus two sampling intervals (a quarter of the threshold each,
 * between 5 ms and 1 s) for sure.
 */
final class LoopWatch {
    private static final Logger log = LoggerFactory.getLogger(LoopWatch.class);
    private static final VarHandle RUNS;

    static {
        try {
            RUNS = MethodHandles.lookup().findVarHandle(LoopWatch.class, "runs", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final ThreadLocal<LoopWatch> CURRENT = new ThreadLocal<>();
    private static final Set<LoopWatch> WATCHED = ConcurrentHashMap.newKeySet();
    private static final long MIN_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The checker's sampling interval: a quarter of the smallest threshold watched. */
    private static volatile long intervalNanos = MAX_INTERVAL_NANOS;
    /** Written under the class's lock: the running checker, or null. */
    private static volatile Thread checker;

    final Thread thread;
    /** The route and threshold of the run in progress; stored before the release of {@link #runs}, so its reader sees them. */
    private Route route;
    private long thresholdNanos;
    /**
     * Incremented as a handler starts and as it ends: odd while one runs on the loop. Written by the
     * loop thread only (with release stores), read by the checker with acquire loads.
     */
    private long runs;

    // the checker's own bookkeeping, touched by the checker thread only
    private long seenRun;
    private long seenSince;
    private long warnedRun = -1;

    private LoopWatch(Thread thread) {
        this.thread = thread;
    }

    /**
     * The current thread's watch, made and handed to the checker on the first call; the checker
     * samples often enough for {@code thresholdNanos} from now on.
     */
    static LoopWatch ofCurrentThread(long thresholdNanos) {
        LoopWatch watch = CURRENT.get();
        if (watch == null) {
            watch = new LoopWatch(Thread.currentThread());
            CURRENT.set(watch);
        }
        watch(watch, thresholdNanos);
        return watch;
    }

    /** On the loop thread: a handler of {@code route} starts, to be reported past {@code thresholdNanos}. */
    void enter(Route route, long thresholdNanos) {
        this.route = route;
        this.thresholdNanos = thresholdNanos;
        RUNS.setRelease(this, runs + 1);
    }

    /** On the loop thread: the handler returned (or threw). */
    void exit() {
        RUNS.setRelease(this, runs + 1);
    }

    private static void watch(LoopWatch watch, long thresholdNanos) {
        long interval = Math.clamp(thresholdNanos / 4, MIN_INTERVAL_NANOS, MAX_INTERVAL_NANOS);
        if (interval >= intervalNanos && checker != null && WATCHED.contains(watch)) {
            return;
        }
        synchronized (LoopWatch.class) {
            if (interval < intervalNanos) {
                intervalNanos = interval;
            }
            WATCHED.add(watch);
            if (checker == null) {
                checker = Thread.ofPlatform().daemon().name("spindle-blocked-loop-checker").start(LoopWatch::check);
            }
        }
    }

    /** The checker thread: samples every watch until none is left (their loop threads ended). */
    private static void check() {
        while (true) {
            LockSupport.parkNanos(intervalNanos);
            long now = System.nanoTime();
            for (LoopWatch watch : WATCHED) {
                if (!watch.thread.isAlive()) {
                    WATCHED.remove(watch);
                } else {
                    watch.sample(now);
                }
            }
            synchronized (LoopWatch.class) {
                if (WATCHED.isEmpty()) {
                    checker = null;
                    intervalNanos = MAX_INTERVAL_NANOS;
                    return;
                }
            }
        }
    }

    private void sample(long now) {
        long run = (long) RUNS.getAcquire(this);
        if ((run & 1) == 0) {
            return;
        }
        if (run != seenRun) {
            seenRun = run;
            seenSince = now;
            return;
        }
        long blocked = now - seenSince;
        long threshold = thresholdNanos;
        if (run == warnedRun || blocked < threshold) {
            return;
        }
        Route blocking = route;
        StackTraceElement[] stack = thread.getStackTrace();
        if ((long) RUNS.getAcquire(this) != run) {
            // it returned while the stack was taken: that stack may show the next request
            return;
        }
        warnedRun = run;
        BlockedLoop where = new BlockedLoop(thread.getName() + "'s stack while blocked");
        where.setStackTrace(stack);
        log.warn("{} has been running the handler of {} {} for at least {} ms (blocked-loop threshold {} ms): every other "
                        + "connection of that loop waits meanwhile; mark a handler that blocks with Handler.blocking",
                thread.getName(), blocking.method, blocking.pattern, TimeUnit.NANOSECONDS.toMillis(blocked),
                TimeUnit.NANOSECONDS.toMillis(threshold), where);
    }

    /** Carries the blocked loop thread's stack into the log; never thrown. */
    private static final class BlockedLoop extends Exception {
        private static final long serialVersionUID = 1L;

        BlockedLoop(String message) {
            super(message, null, false, true);
        }
    }
}
