// SPDX-License-Identifier: Apache-2.0
package dev.spindle.benchmark;

import dev.spindle.core.EventStream;
import dev.spindle.core.HttpException;
import dev.spindle.core.Request;
import dev.spindle.core.Response;
import dev.spindle.core.ServerSentEvent;
import dev.spindle.core.WebSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fan-out routes of the broadcast benchmarks, one room per router: {@code /ws/broadcast}'s
 * sockets, each text message sent to every member (the sender too) encoded once; and
 * {@code /sse/broadcast}'s event streams, to which {@code POST /sse/publish} sends its body as
 * one event. The Netty and Vert.x references serve the same routes in their own idiom.
 */
final class Broadcasts {
    /** The largest body {@code /sse/publish} takes: an event is a short notification. */
    static final int MAX_EVENT_BYTES = 1024;

    private final Set<WebSocket> room = ConcurrentHashMap.newKeySet();
    private final Set<EventStream> streams = ConcurrentHashMap.newKeySet();

    /** {@code /ws/broadcast}'s endpoint: members join on open and leave on close. */
    WebSocket.Endpoint room() {
        return new WebSocket.Endpoint() {
            @Override
            public void onOpen(WebSocket socket) {
                room.add(socket);
            }

            @Override
            public void onText(WebSocket socket, String message) {
                WebSocket.broadcast(room, message);
            }

            @Override
            public void onClose(WebSocket socket, int code, String reason) {
                room.remove(socket);
            }

            @Override
            public void onError(WebSocket socket, Throwable error) {
                room.remove(socket);
            }
        };
    }

    /** {@code GET /sse/broadcast}: a stream that hears every event published from now on. */
    void subscribe(Request req, Response res) {
        res.eventStream(stream -> {
            streams.add(stream);
            stream.closed().thenRun(() -> streams.remove(stream));
        });
    }

    /**
     * {@code POST /sse/publish}: the body, one line of text, as a {@code data} event to every
     * stream, answered 204 once queued to all of them. A line break would split it into fields
     * of the client's choosing, so it is refused.
     */
    void publish(Request req, Response res) {
        if (req.body().remaining() > MAX_EVENT_BYTES) {
            throw new HttpException(413, "an event is at most " + MAX_EVENT_BYTES + " bytes");
        }
        String text = req.bodyText();
        if (text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0) {
            throw new HttpException(400, "an event is one line: no CR or LF");
        }
        ServerSentEvent event = ServerSentEvent.data(text);
        for (EventStream stream : streams) {
            stream.send(event);
        }
        res.status(204);
    }

    int members() {
        return room.size();
    }

    int streams() {
        return streams.size();
    }
}
