package dev.spindle.core.fuzz;

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
 */
final class ConnectionDriver {
    /** A pump that goes around this often without settling is a livelock. */
    private static final int MAX_STEPS = 1_000_000;

    private final Connection connection;
    private final Queue<Runnable> offloaded = new ArrayDeque<>();
    private final int writeStep;
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private int submitted;
    private int wakeups;

    /**
     * @param offload whether blocking routes go to the driver's queue rather than running inline
     * @param writeStep bytes written per write call; 0 writes everything pending at once
     */
    ConnectionDriver(Router routes, ServerConfig config, boolean offload, int writeStep) {
        Executor queue = task -> {
            submitted++;
            offloaded.add(task);
        };
        this.connection = offload ? new Connection(routes, config, queue, () -> wakeups++) : new Connection(routes, config);
        this.writeStep = writeStep;
    }

    /** Feeds a piece as a strategy would: only while the connection is open. False once it is closed. */
    boolean receive(byte[] piece) {
        if (connection.shouldClose()) {
            return false;
        }
        require(connection.wantsInput(), "an open, settled connection must want input");
        ByteBuffer src = ByteBuffer.wrap(piece);
        connection.received(src);
        require(!src.hasRemaining(), "received() must consume everything");
        pump();
        return true;
    }

    void closeAfterResponse() {
        connection.closeAfterResponse();
        pump();
    }

    /** The peer closed its side: everything complete is answered, then the connection must be closed. */
    byte[] finish() {
        if (!connection.shouldClose()) {
            connection.endOfInput();
            pump();
        }
        require(connection.shouldClose(), "after end of input and every byte written, the connection must close");
        require(offloaded.isEmpty() && submitted == wakeups, "every offloaded handler ran and woke the connection once");
        return written.toByteArray();
    }

    private void pump() {
        for (int step = 0; step < MAX_STEPS; step++) {
            if (connection.hasOutbound()) {
                write();
            } else if (!offloaded.isEmpty()) {
                offloaded.remove().run();
                connection.resume();
            } else {
                require(!connection.isAwaitingHandler(), "awaiting a handler that was never submitted");
                require(connection.shouldClose() || connection.wantsInput(),
                        "neither closing nor wanting input with nothing to write and no handler running");
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

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
