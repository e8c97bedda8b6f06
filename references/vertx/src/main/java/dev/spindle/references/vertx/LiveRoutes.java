// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.vertx;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long-lived routes: WebSocket echo and broadcast, server-sent events. One instance per
 * {@link VertxServer}, shared by every {@link BenchmarkVerticle}: the broadcast room and the event
 * streams span all event loops, so they are concurrent sets, and a member is written from whichever
 * loop the message or the publish arrived on.
 *
 * <p>Writing from another thread is safe in Vert.x 5.1: a {@link ServerWebSocket}'s frames and an
 * {@link HttpServerResponse}'s chunks go through the connection's outbound queue, which hands a write
 * from a foreign thread to the connection's own event loop (unless {@code strictThreadMode} is on,
 * which it is not here), and the loop flushes it.
 *
 * <p>Slow consumers: Vert.x's default, no policy of ours. A write to a member that does not read
 * queues in Netty's outbound buffer without bound ({@code writeQueueFull()} only reports it), so such
 * a member costs memory until it reads or its connection closes.
 */
final class LiveRoutes {
    private static final Logger log = LoggerFactory.getLogger(LiveRoutes.class);
    /** The largest message /ws/echo takes whole (fragments aggregated), and the largest frame. */
    static final int MAX_WEBSOCKET_MESSAGE = 16 * 1024 * 1024;
    /** The largest body /sse/publish takes. */
    static final int MAX_EVENT_DATA = 1024;
    /** RFC 6455 7.4.1: a message too big to process. */
    private static final short MESSAGE_TOO_BIG = 1009;

    private static final CharSequence EVENT_STREAM = HttpHeaders.createOptimized("text/event-stream");
    private static final CharSequence NO_CACHE = HttpHeaders.createOptimized("no-cache");
    private static final CharSequence TEXT_PLAIN = HttpHeaders.createOptimized("text/plain; charset=utf-8");
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END_OF_EVENT = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final Buffer BAD_EVENT = Buffer.buffer("the event must be at most " + MAX_EVENT_DATA
            + " bytes of text without CR or LF");

    private final Set<ServerWebSocket> room = ConcurrentHashMap.newKeySet();
    private final Set<HttpServerResponse> streams = ConcurrentHashMap.newKeySet();

    /** Adds the routes, after the benchmark's own, so that matching those costs what it did. */
    void addTo(Router router) {
        router.get("/ws/echo").handler(ctx -> upgrade(ctx, LiveRoutes::echo));
        router.get("/ws/broadcast").handler(ctx -> upgrade(ctx, this::join));
        router.get("/sse/broadcast").handler(this::subscribe);
        // the limit makes BodyHandler fail the route with 413; the contract answers 400 for that too
        router.post("/sse/publish")
                .handler(BodyHandler.create(false).setBodyLimit(MAX_EVENT_DATA))
                .handler(this::publish)
                .failureHandler(ctx -> {
                    if (ctx.statusCode() == 413) {
                        badEvent(ctx);
                    } else {
                        ctx.next();
                    }
                });
    }

    /** Members of the room now, for tests. */
    int roomSize() {
        return room.size();
    }

    /** Open event streams now, for tests. */
    int streamCount() {
        return streams.size();
    }

    /**
     * Upgrades through the router. A request that is no WebSocket handshake has had Vert.x's own
     * answer (400, 405 or 426) by the time the future fails; on HTTP/2, where there is none, a 400.
     */
    private static void upgrade(RoutingContext ctx, Handler<ServerWebSocket> session) {
        ctx.request().toWebSocket()
                .onSuccess(ws -> {
                    ws.exceptionHandler(e -> failed(ws, e));
                    session.handle(ws);
                })
                .onFailure(e -> {
                    log.debug("no WebSocket on {}: {}", ctx.request().path(), e.toString());
                    if (!ctx.response().headWritten()) {
                        ctx.response().setStatusCode(400).end();
                    }
                });
    }

    /**
     * Vert.x reports a message aggregated past the limit here, as an IllegalStateException, and
     * leaves the socket open: it is closed with 1009, as Netty's decoder closes on a single frame
     * past it. Other failures are the connection's, which Vert.x closes itself.
     */
    private static void failed(ServerWebSocket ws, Throwable e) {
        log.debug("WebSocket {} failed: {}", ws.remoteAddress(), e.toString());
        if (e instanceof IllegalStateException && !ws.isClosed()) {
            ws.close(MESSAGE_TOO_BIG);
        }
    }

    /** Each message back as it came, text as text, binary as binary; pings and closes are Vert.x's. */
    private static void echo(ServerWebSocket ws) {
        ws.textMessageHandler(ws::writeTextMessage);
        ws.binaryMessageHandler(ws::writeBinaryMessage);
    }

    /**
     * Joins the room until the socket closes. Vert.x's public API takes a text message only as a
     * String, which it encodes per socket: the one String received goes to every member.
     */
    private void join(ServerWebSocket ws) {
        room.add(ws);
        ws.closeHandler(v -> room.remove(ws));
        ws.textMessageHandler(text -> {
            for (ServerWebSocket member : room) {
                member.writeTextMessage(text);
            }
        });
    }

    /**
     * An event stream, in the set before its head is written, so a client that has read the head
     * gets every later event. Vert.x's idle timeout is off by default (and not set), so the stream
     * stays open as long as the client keeps it.
     */
    private void subscribe(RoutingContext ctx) {
        HttpServerResponse response = ctx.response()
                .setChunked(true)
                .putHeader(HttpHeaders.CONTENT_TYPE, EVENT_STREAM)
                .putHeader(HttpHeaders.CACHE_CONTROL, NO_CACHE);
        streams.add(response);
        response.closeHandler(v -> streams.remove(response));
        // a connection gone before the handler was set would never call it
        if (response.closed()) {
            streams.remove(response);
            return;
        }
        response.writeHead();
    }

    /** One event, encoded once into one Buffer, written as one chunk to every stream; 204 once the writes are issued. */
    private void publish(RoutingContext ctx) {
        Buffer data = ctx.body().buffer();
        if (data == null) {
            data = Buffer.buffer();
        }
        for (int i = 0; i < data.length(); i++) {
            byte b = data.getByte(i);
            if (b == '\r' || b == '\n') {
                badEvent(ctx);
                return;
            }
        }
        Buffer event = Buffer.buffer(DATA.length + data.length() + END_OF_EVENT.length)
                .appendBytes(DATA)
                .appendBuffer(data)
                .appendBytes(END_OF_EVENT);
        for (HttpServerResponse stream : streams) {
            try {
                stream.write(event);
            } catch (IllegalStateException e) {
                // closing on its own loop as we write (an HTTP/2 stream throws once reset): the others still get the event
                log.debug("event stream gone: {}", e.toString());
            }
        }
        ctx.response().setStatusCode(204).end();
    }

    private static void badEvent(RoutingContext ctx) {
        ctx.response().setStatusCode(400).putHeader(HttpHeaders.CONTENT_TYPE, TEXT_PLAIN).end(BAD_EVENT);
    }
}
