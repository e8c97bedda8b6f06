// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * What other threads give an event loop, behind its {@link OutboundLoop#execute} and
 * {@link OutboundLoop#resume}: tasks to run, and the outbound connections whose wakeup ran. Any
 * thread may queue until the loop {@linkplain #stop() stops}; the loop's own thread takes them
 * ({@link #runQueued}), at most a bounded number of tasks per pass, so tasks that queue more tasks
 * cannot keep the loop from its sockets. A task that throws is logged and the loop goes on.
 * Queuing does not wake the loop: the caller does that, the way its loop is woken.
 */
public final class LoopTasks {
    private final String loopName;
    private final FailureLog failures;
    private final int maxTasksPerPass;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Queue<OutboundConnection> resumed = new ConcurrentLinkedQueue<>();
    private volatile boolean stopped;

    /**
     * The queues of one loop.
     *
     * @param loopName the loop's name, for the refusal's message and the failure log
     * @param failures the loop's failure log, where a failing task is counted
     * @param maxTasksPerPass how many tasks {@link #runQueued} runs at most
     */
    public LoopTasks(String loopName, FailureLog failures, int maxTasksPerPass) {
        this.loopName = Objects.requireNonNull(loopName, "loopName");
        this.failures = Objects.requireNonNull(failures, "failures");
        if (maxTasksPerPass < 1) {
            throw new IllegalArgumentException("maxTasksPerPass must be positive: " + maxTasksPerPass);
        }
        this.maxTasksPerPass = maxTasksPerPass;
    }

    /**
     * Queues {@code task} for the loop's thread, from any thread ({@link OutboundLoop#execute});
     * the caller then wakes the loop.
     *
     * @param task what to run on the loop's thread
     * @throws RejectedExecutionException once the loop has stopped
     */
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (stopped) {
            throw new RejectedExecutionException(loopName + " has stopped");
        }
        tasks.offer(task);
        // the loop stops, then runs what is queued (runRemaining): a task is either run there or taken back here
        if (stopped && tasks.remove(task)) {
            throw new RejectedExecutionException(loopName + " has stopped");
        }
    }

    /**
     * Queues an outbound connection's wakeup for the loop's thread, from any thread
     * ({@link OutboundLoop#resume}); once the loop has stopped, nothing.
     *
     * @param connection the connection whose wakeup ran
     * @return true if it was queued (the caller then wakes the loop), false once the loop has stopped
     */
    public boolean resume(OutboundConnection connection) {
        if (stopped) {
            return false;
        }
        resumed.offer(connection);
        return true;
    }

    /**
     * Whether tasks or wakeups are waiting, for a loop deciding whether to wait for its sockets.
     *
     * @return true if {@link #runQueued} has something to do
     */
    public boolean hasQueued() {
        return !resumed.isEmpty() || !tasks.isEmpty();
    }

    /**
     * On the loop's thread: hands every queued wakeup to {@code resume} (which finds the socket the
     * connection is driven on, if it still is, and resumes it), then runs the tasks queued, at most
     * the bound given at construction.
     *
     * @param resume what the loop does for an outbound connection whose wakeup ran
     * @throws Error a fatal VM error ({@link FailureLog#isFatal}) a task threw, once logged
     */
    public void runQueued(Consumer<OutboundConnection> resume) {
        OutboundConnection connection;
        while ((connection = resumed.poll()) != null) {
            resume.accept(connection);
        }
        runTasks(maxTasksPerPass);
    }

    /** Refuses every task and wakeup from now on; the loop then runs what it had accepted ({@link #runRemaining}). */
    public void stop() {
        stopped = true;
    }

    /**
     * Whether the loop has stopped, which refuses tasks, connects and wakeups.
     *
     * @return true once {@link #stop} was called
     */
    public boolean stopped() {
        return stopped;
    }

    /**
     * On the loop's thread, once it has stopped: runs every task accepted before, however many, and
     * drops the queued wakeups.
     *
     * @throws Error a fatal VM error ({@link FailureLog#isFatal}) a task threw, once logged
     */
    public void runRemaining() {
        runTasks(Integer.MAX_VALUE);
        resumed.clear();
    }

    private void runTasks(int max) {
        Runnable task;
        for (int n = 0; n < max && (task = tasks.poll()) != null; n++) {
            try {
                task.run();
            } catch (Throwable t) {
                failures.warn(loopName + ": a task failed; the loop goes on", task, t);
                if (FailureLog.isFatal(t)) {
                    throw (Error) t;
                }
            }
        }
    }
}
