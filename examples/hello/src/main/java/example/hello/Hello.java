// SPDX-License-Identifier: Apache-2.0
package example.hello;

import dev.spindle.blocking.VirtualThreadServer;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Says hello on the port given (0 picks a free one), a virtual thread per connection. */
public final class Hello {
    private static final Logger log = LoggerFactory.getLogger(Hello.class);

    private Hello() {
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
        Router routes = Router.builder()
                .get("/", (req, res) -> res.text("Hello from Spindle"))
                .build();
        try (HttpServer server = new VirtualThreadServer(ServerConfig.defaults().host("127.0.0.1").port(port), routes).start()) {
            log.info("hello listening on {}", server.port());
            server.awaitTermination();
        }
    }
}
