// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.fuzz;

import static dev.spindle.core.fuzz.Findings.require;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Drives a {@link Connection} the way a strategy does, without sockets: hands it each received
 * piece, writes what it has (all at once or a few bytes at a time), runs offloaded handlers on a
 * worker thread of its own (they may read a streamed request body, which only later pieces
 * complete), and calls {@code resume()} after each wakeup. It checks the connection's own
 * contract as it goes and fails with an {@link AssertionError}.
 *
 * <p>A prompt driver settles after every piece: nothing left to write, no handler outstanding that
 * does not wait for more input. A lagging one writes a single step per piece and does not wait for
 * handlers, as an event loop may read more bytes while a handler runs or the peer is slow to read;
 * those bytes overwrite the receive buffer the pending request was parsed from.
 */
final class ConnectionDriver {
    /** A pump that goes around this often without settling is a livelock. */
    private static final int MAX_STEPS = 1_000_000;
    /** How long a settling driver waits for an offloaded handler that does not need more input. */
    private static final long HANDLER_WAIT_MILLIS = 5_000;

    private final Connection connection;
    private final ExecutorService worker;
    private final Semaphore wakeups = new Semaphore(0);
    private final int writeStep;
    private final boolean lagging;
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private int submitted;

    /**
     * @param offload whether blocking routes go to the driver's own worker thread rather than running inline
     * @param writeStep bytes written per write call; 0 writes everything pending at once
     * @param lagging whether output may stay pending, and handlers unawaited, while the next piece arrives
     */
    ConnectionDriver(Router routes, ServerConfig config, boolean offload, int writeStep, boolean lagging) {
        this.worker = offload ? Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().unstarted(r)) : null;
        Executor counting = task -> {
            submitted++;
            worker.execute(task);
        };
        this.connection = offload ? Connection.open(routes, config, counting, wakeups::release) : Connection.open(routes, config);
        this.writeStep = writeStep;
        this.lagging = lagging;
    }

    /** Feeds a piece as a strategy would: only until the connection is finished. False once it is. */
    boolean receive(byte[] piece) {
        if (connection.state().finished()) {
            return false;
        }
        ByteBuffer src = ByteBuffer.wrap(piece);
        connection.received(src);
        require(!src.hasRemaining(), "received() must consume everything");
        pump(!lagging);
        return true;
    }

    void closeAfterResponse() {
        connection.closeAfterResponse();
        pump(!lagging);
    }

    /** The peer closed its side: everything complete is answered, then the connection must be closed. */
    byte[] finish() {
        try {
            pump(true);
            if (!(connection.next() == Next.CLOSE)) {
                connection.endOfInput();
                pump(true);
            }
            require((connection.next() == Next.CLOSE), "after end of input and every byte written, the connection must close");
            return written.toByteArray();
        } finally {
            if (worker != null) {
                worker.shutdownNow();
            }
        }
    }

    /**
     * Writes, and resumes the connection when a handler woke it; {@code settle}: until nothing is
     * left to write and no handler is awaited (one blocked on more request body is left to the next
     * piece), else one write step and whatever wakeups have already come.
     */
    private void pump(boolean settle) {
        for (int step = 0; step < MAX_STEPS; step++) {
            if (wakeups.tryAcquire()) {
                connection.resume();
            } else if (connection.next().writes()) {
                write();
                if (!settle) {
                    return;
                }
            } else if (settle && (connection.state() == Connection.State.HANDLING) && !connection.next().reads()) {
                require(submitted > 0 || worker == null, "awaiting a handler that was never submitted");
                try {
                    require(wakeups.tryAcquire(HANDLER_WAIT_MILLIS, TimeUnit.MILLISECONDS), "an offloaded handler never woke the connection");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
                connection.resume();
            } else {
                if (settle) {
                    require(connection.state().finished() || connection.next().reads(),
                            "neither finished nor wanting input with nothing to write and no handler running");
                }
                return;
            }
        }
        throw new AssertionError("the connection did not settle within " + MAX_STEPS + " steps");
    }

    private void write() {
        ByteBuffer view = connection.outbound();
        require(view.remaining() == connection.outbound().remaining(), "outbound() and outboundBytes() disagree");
        int n = writeStep == 0 ? view.remaining() : Math.min(writeStep, view.remaining());
        byte[] chunk = new byte[n];
        view.get(chunk);
        written.write(chunk, 0, n);
        connection.written(n);
    }
}
