// SPDX-License-Identifier: Apache-2.0
package dev.spindle.launch;

/** The launcher of {@link dev.spindle.nio.MultiLoopServer}: {@code <port> [workers]}, the benchmark app's routes, until SIGTERM. */
public final class MultiLoopServer {
    private MultiLoopServer() {
    }

    /**
     * Runs the server until the process is told to stop.
     *
     * @param args the port (0 picks a free one) and, optionally, the worker count
     */
    public static void main(String[] args) {
        Launch.run(MultiLoopServer.class, args, dev.spindle.nio.MultiLoopServer::new);
    }
}
