package dev.spindle.conformance;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * Runs a server class with the benchmark app and the streaming routes in a process of its own, for
 * {@link LargeTransferCheck}: {@code StreamingServerMain <server class>}; prints
 * {@code listening on <port>} when ready and serves until killed.
 */
public final class StreamingServerMain {
    private StreamingServerMain() {
    }

    public static void main(String[] args) throws Exception {
        Class<?> type = Class.forName(args[0]);
        ServerConfig config = ServerConfig.fromSystemProperties().port(0).workers(2).maxBodySize(Integer.MAX_VALUE - 64);
        Router routes = StreamingRoutes.register(BenchmarkApp.register(Router.builder())).build();
        HttpServer server = (HttpServer) type.getConstructor(ServerConfig.class, Router.class).newInstance(config, routes);
        server.start();
        System.out.println("listening on " + server.port());
        System.out.flush();
        server.awaitTermination();
    }
}
