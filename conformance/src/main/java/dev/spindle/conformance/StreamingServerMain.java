// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Runs a server class with the benchmark app and the streaming routes in a process of its own, for
 * {@link LargeTransferCheck}: {@code StreamingServerMain <server class> <port file>}; writes its
 * port into the port file when ready (atomically, so a reader never sees half of it) and serves
 * until killed.
 */
public final class StreamingServerMain {
    private StreamingServerMain() {
    }

    /**
     * Starts the server and serves until the process is killed.
     *
     * @param args the server class's name and the port file's path
     * @throws Exception if the server cannot be made or started
     */
    public static void main(String[] args) throws Exception {
        Class<?> type = Class.forName(args[0]);
        ServerConfig config = ServerConfig.fromSystemProperties().port(0).workers(2).maxBodySize(Integer.MAX_VALUE - 64);
        Router routes = StreamingRoutes.register(BenchmarkApp.register(Router.builder())).build();
        HttpServer server = (HttpServer) type.getConstructor(ServerConfig.class, Router.class).newInstance(config, routes);
        server.start();
        Path portFile = Path.of(args[1]);
        Path written = Files.writeString(portFile.resolveSibling(portFile.getFileName() + ".tmp"), Integer.toString(server.port()));
        Files.move(written, portFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        server.awaitTermination();
    }
}
