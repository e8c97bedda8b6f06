package dev.spindle.core.fuzz;

import static dev.spindle.core.fuzz.Findings.require;

import dev.spindle.core.Connection;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/**
 * Drives a {@link Connection} the way a strategy does, without sockets or threads: hands it each
 * received piece, writes what it has (all at once or a few bytes at a time), runs offloaded
 * handlers on a queue the driver empties itself, and calls {@code resume()} after each of those.
 * It checks the connection's own contract as it goes and fails with an {@link AssertionError}.
 *
 * <p>A prompt driver settles after every piece: nothing left to write, no handler outstanding. A
 * lagging one writes a single step per piece and lets offloaded handlers finish only after the
 * next piece arrived, as an event loop may read more bytes while a handler runs or the peer is
 * slow to read; those bytes overwrite the receive buffer the pending request was parsed from.
 */
final class ConnectionDriver {
    /** A pump that goes around this often without settling is a livelock. */
    private static final int MAX_STEPS = 1_000_000;

    private final Connection connection;
    private final Queue<Runnable> offloaded = new ArrayDeque<>();
    private final int writeStep;
    private final boolean lagging;
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private int submitted;
    private int wakeups;

    /**
     * @param offload whether blocking routes go to the driver's queue rather than running inline
     * @param writeStep bytes written per write call; 0 writes everything pending at once
     * @param lagging whether output and offloaded handlers may stay pending while the next piece arrives
     */
    ConnectionDriver(Router routes, ServerConfig config, boolean offload, int writeStep, boolean lagging) {
        Executor queue = task -> {
            submitted++;
            offloaded.add(task);
        };
        this.connection = offload ? new Connection(routes, config, queue, () -> wakeups++) : new Connection(routes, config);
        this.writeStep = writeStep;
        this.lagging = lagging;
    }

    /** Feeds a piece as a strategy would: only until the connection is closed. False once it is. */
    boolean receive(byte[] piece) {
        if (connection.shouldClose()) {
            return false;
        }
        int due = offloaded.size();
        ByteBuffer src = ByteBuffer.wrap(piece);
        connection.received(src);
        require(!src.hasRemaining(), "received() must consume everything");
        for (int i = 0; i < due; i++) {
            offloaded.remove().run();
            connection.resume();
        }
        pump(!lagging);
        return true;
    }

    void closeAfterResponse() {
        connection.closeAfterResponse();
        pump(!lagging);
    }

    /** The peer closed its side: everything complete is answered, then the connection must be closed. */
    byte[] finish() {
        pump(true);
        if (!connection.shouldClose()) {
            connection.endOfInput();
            pump(true);
        }
        require(connection.shouldClose(), "after end of input and every byte written, the connection must close");
        require(offloaded.isEmpty() && submitted == wakeups, "every offloaded handler ran and woke the connection once");
        return written.toByteArray();
    }

    /** Writes and runs handlers; {@code settle}: until neither is left, else one write step and no handler. */
    private void pump(boolean settle) {
        for (int step = 0; step < MAX_STEPS; step++) {
            if (connection.hasOutbound()) {
                write();
                if (!settle) {
                    return;
                }
            } else if (settle && !offloaded.isEmpty()) {
                offloaded.remove().run();
                connection.resume();
            } else {
                if (settle) {
                    require(!connection.isAwaitingHandler(), "awaiting a handler that was never submitted");
                    require(connection.shouldClose() || connection.wantsInput(),
                            "neither closing nor wanting input with nothing to write and no handler running");
                }
                return;
            }
        }
        throw new AssertionError("the connection did not settle within " + MAX_STEPS + " steps");
    }
    private void write() {
        ByteBuffer view = connection.outbound();
        require(view.remaining() == connection.outboundBytes(), "outbound() and outboundBytes() disagree");
        int n = writeStep == 0 ? view.remaining() : Math.min(writeStep, view.remaining());
        byte[] chunk = new byte[n];
        view.get(chunk);
        written.write(chunk, 0, n);
        connection.written(n);
        connection.resume();
    }
}
