// SPDX-License-Identifier: Apache-2.0
/**
 * The core of Spindle, an HTTP/1.1 server library: the parser, the connection, the router and
 * everything a handler sees. Servers, one per I/O model, live in other modules and share this core,
 * so every one of them serves the same routes and answers bad input the same way.
 *
 * <h2>Servers</h2>
 * A server is an {@link dev.spindle.core.HttpServer}: constructed from a
 * {@link dev.spindle.core.ServerConfig} and a {@link dev.spindle.core.Router}, it binds in
 * {@link dev.spindle.core.HttpServer#start() start()}, closes gracefully in
 * {@link dev.spindle.core.HttpServer#close() close()} (stops accepting, lets in-flight requests
 * finish within {@link dev.spindle.core.ServerConfig#drainTimeout()}) and by default also on
 * SIGTERM. Pick the I/O model by picking the class: {@code VirtualThreadServer},
 * {@code ThreadPoolServer}, {@code ThreadPerConnectionServer} or {@code SingleThreadServer}
 * (module {@code spindle-blocking-server}), {@code SingleLoopServer}, {@code MultiLoopServer},
 * {@code BossWorkerServer} or {@code ReusePortServer} (NIO, {@code spindle-nio-servers}) and
 * {@code IoUringServer} ({@code spindle-iouring-server}, Linux only). Depending on one of these
 * modules brings this one.
 * Starting one, with a {@code router} built as in the example further down:
 * {@snippet :
 * ServerConfig config = ServerConfig.fromSystemProperties().port(8080); // -Dspindle.* settings, then the port
 * try (HttpServer server = new VirtualThreadServer(config, router).start()) {
 *     server.awaitTermination(); // returns once the server has closed
 * }
 * }
 *
 * <h2>Routes and handlers</h2>
 * {@link dev.spindle.core.Router#builder()} maps a method and a path pattern (literal segments,
 * {@code {name}} variables, a last {@code {name...}} tail) to a {@link dev.spindle.core.Handler},
 * which reads the {@link dev.spindle.core.Request} and fills in the
 * {@link dev.spindle.core.Response}. Routes are tried in the order added; an unknown path is 404,
 * a known path with the wrong method 405. Handlers come in three kinds:
 * <ul>
 *   <li>inline, a plain lambda: runs on the connection's thread, which may be an event loop, so
 *       it must not block; it gets the whole request body;</li>
 *   <li>{@link dev.spindle.core.Handler#blocking(Handler) blocking}: event-loop servers run it on
 *       a virtual thread; it reads the body as it arrives;</li>
 *   <li>{@link dev.spindle.core.Handler#async(Handler.Async) asynchronous}: returns a
 *       {@link java.util.concurrent.CompletionStage} and holds no thread until it completes.</li>
 * </ul>
 * Responses can stream a file, an input stream or a writer, pulled as the socket drains.
 *
 * <h2>Filters and errors</h2>
 * A {@link dev.spindle.core.Filter} runs around every exchange that reaches routing, 404 and 405
 * included, and around the connection's refusals of requests whose head was read (413, 408, 503);
 * an {@link dev.spindle.core.ExchangeListener} hears of every exchange's end with the status sent,
 * refusals, handler timeouts and client resets included: {@link dev.spindle.core.AccessLog} and
 * {@link dev.spindle.core.ExchangeMetrics} are two ready-made ones. A handler answers an error by throwing: an
 * {@link dev.spindle.core.HttpException} carries its status, an
 * {@link dev.spindle.core.ExceptionMapper} registered for an exception type shapes the answer,
 * and anything else is a 500 (logged). Requests with a malformed head (400, 414, 431) are answered
 * by the connection before routing, by every server alike; a streamed body that breaks later (413, 408,
 * 400) keeps that status through filters and mappers (see {@link dev.spindle.core.ExceptionMapper}).
 * {@snippet :
 * Router router = Router.builder()
 *         .listener(new AccessLog())                     // one INFO line per exchange
 *         .filter((req, res, chain) -> {
 *             res.header("Access-Control-Allow-Origin", "*");
 *             return chain.proceed();                  // the later filters, then the handler
 *         })
 *         .get("/users/{id}", (req, res) -> res.text("user " + req.pathParam("id")))
 *         .build();
 * }
 *
 * <h2>Static files and JSON</h2>
 * {@link dev.spindle.core.StaticFiles} serves a directory or classpath resources under a prefix
 * ({@link dev.spindle.core.Router.Builder#staticFiles(String, StaticFiles)}), with validators,
 * byte ranges and zero-copy sending. Spindle has no JSON library of its own: a
 * {@link dev.spindle.core.JsonCodec} registered with
 * {@link dev.spindle.core.Router.Builder#json(JsonCodec)} adapts the application's one for
 * {@link dev.spindle.core.Request#bodyAs(Class)} and {@link dev.spindle.core.Response#json(Object)};
 * {@link dev.spindle.core.Json#quote(String)} quotes a string for hand-written JSON.
 *
 * <h2>Configuration</h2>
 * {@link dev.spindle.core.ServerConfig} holds the address, worker count, protocol limits and
 * timeouts: immutable, changed by copying ({@code ServerConfig.defaults().port(8080)}), or read
 * from {@code -Dspindle.*} system properties with
 * {@link dev.spindle.core.ServerConfig#fromSystemProperties()}. Its Javadoc has the table of every
 * setting, property and default. The servers' main classes share one command line
 * ({@code <port> [workers]}).
 *
 * <h2>Health and a graceful stop behind a load balancer</h2>
 * {@link dev.spindle.core.Health} answers liveness and readiness probes;
 * {@link dev.spindle.core.Router.Builder#health(String, Health)} mounts them at
 * {@code <prefix>/live} and {@code <prefix>/ready}. A server's close turns readiness down first
 * and serves on for {@link dev.spindle.core.ServerConfig#drainDelay()} before it drains, so a
 * balancer probing readiness stops sending before the server stops accepting.
 *
 * <h2>Calling other services</h2>
 * Spindle's HTTP/1.1 client runs on the servers' own loops, as the server side does: a request
 * completes with a {@link dev.spindle.core.ClientResponse} (status, fields, the whole body,
 * trailers) or fails with a {@link dev.spindle.core.ClientException} whose
 * {@link dev.spindle.core.ClientException#reason() reason} says what went wrong (connect refused
 * or timed out, no response in time, a malformed or too large response, the connection closed,
 * or the request never sent and safe to send again).
 *
 * <h2>Where strategies plug in</h2>
 * Everything a server implementation needs and an application does not lives apart, in
 * {@code dev.spindle.core.spi}; an application needs only this package and a server class.
 * A server strategy only moves bytes. {@link dev.spindle.core.spi.Connection} is one HTTP/1.1
 * connection without I/O: the strategy feeds it received bytes, writes what it hands out, calls
 * {@link dev.spindle.core.spi.Connection#tick(long)} now and then for the timeouts, and acts on its
 * answers (read or not, half-close, close); every byte a server sends comes from it.
 * {@link dev.spindle.core.spi.EventLoopServer} is the shell the NIO and io_uring servers share (start,
 * graceful close, connection limit, virtual threads for blocking handlers), its loops seeing it
 * through a {@link dev.spindle.core.spi.LoopContext}; {@link dev.spindle.core.spi.ServerLifecycle} holds
 * the start and close bookkeeping every server shares.
 */
package dev.spindle.core;
