// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * One event of a {@code text/event-stream} (the HTML standard's server-sent events): its
 * {@code data}, and optionally an {@code id} (what a reconnecting client sends back as
 * {@code Last-Event-ID}), an {@code event} type and a {@code retry} delay for the client's
 * reconnection. Data may span lines: each line becomes a {@code data:} field, whatever its line
 * ending ({@code \n}, {@code \r\n} or {@code \r}), so the client gets the same text back with
 * {@code \n} between lines. An id or type holding a line break (or an id holding U+0000, which the
 * client would ignore) is refused when set, so one event can never inject another. Immutable.
 * {@snippet :
 * stream.send(ServerSentEvent.data("{\"price\":12.5}").event("tick").id("42"));
 * }
 */
public final class ServerSentEvent {
    private final String data;
    private final String id;
    private final String event;
    private final Duration retry;
    /** {@link #encode()}'s bytes, made on first need (an event is immutable, so they never change). */
    private volatile byte[] encoded;

    private ServerSentEvent(String data, String id, String event, Duration retry) {
        this.data = data;
        this.id = id;
        this.event = event;
        this.retry = retry;
    }

    /**
     * An event carrying {@code data}.
     *
     * @param data the text, any number of lines; may be empty
     * @return the event, of the default type ({@code message}), without an id
     */
    public static ServerSentEvent data(String data) {
        return new ServerSentEvent(Objects.requireNonNull(data, "data"), null, null, null);
    }

    /**
     * A copy with an id, which the client remembers and sends as {@code Last-Event-ID} when it
     * reconnects.
     *
     * @param id the id; may be empty (it then resets the client's last id)
     * @return the copy
     * @throws IllegalArgumentException if it holds a line break or U+0000
     */
    public ServerSentEvent id(String id) {
        if (id.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("an event id cannot hold U+0000 (the client would ignore it)");
        }
        return new ServerSentEvent(data, oneLine("id", id), event, retry);
    }

    /**
     * A copy with an event type: the client dispatches it to the listeners of that name.
     *
     * @param type the type, not empty
     * @return the copy
     * @throws IllegalArgumentException if it is empty or holds a line break
     */
    public ServerSentEvent event(String type) {
        if (type.isEmpty()) {
            throw new IllegalArgumentException("an event type is not empty (leave it unset for \"message\")");
        }
        return new ServerSentEvent(data, id, oneLine("event type", type), retry);
    }

    /**
     * A copy that tells the client how long to wait before reconnecting.
     *
     * @param delay the delay, sent in whole milliseconds
     * @return the copy
     * @throws IllegalArgumentException if it is negative
     */
    public ServerSentEvent retry(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("a retry delay is not negative: " + delay);
        }
        return new ServerSentEvent(data, id, event, delay);
    }

    /** {@return the data} */
    public String data() {
        return data;
    }

    /** {@return the id, or null} */
    public String id() {
        return id;
    }

    /** {@return the event type, or null for the default} */
    public String event() {
        return event;
    }

    private static String oneLine(String what, String value) {
        if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("an event's " + what + " is one line: " + value.replace("\n", "\\n").replace("\r", "\\r"));
        }
        return value;
    }

    /**
     * The event as the stream carries it: its fields in UTF-8, then the blank line that ends it.
     * Encoded once, so an event sent to many streams costs one encoding; callers never change the array.
     */
    byte[] encode() {
        byte[] bytes = encoded;
        if (bytes == null) {
            bytes = encodeFields();
            encoded = bytes;
        }
        return bytes;
    }

    private byte[] encodeFields() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length() + 32);
        if (event != null) {
            field(out, "event", event);
        }
        int start = 0;
        int n = data.length();
        while (true) {
            int end = start;
            while (end < n && data.charAt(end) != '\n' && data.charAt(end) != '\r') {
                end++;
            }
            field(out, "data", data.substring(start, end));
            if (end == n) {
                break;
            }
            start = end + (data.charAt(end) == '\r' && end + 1 < n && data.charAt(end + 1) == '\n' ? 2 : 1);
            if (start == n) {
                // a final line break: the client strips one trailing newline from the data, so send an empty line for it
                field(out, "data", "");
                break;
            }
        }
        if (id != null) {
            field(out, "id", id);
        }
        if (retry != null) {
            field(out, "retry", Long.toString(retry.toMillis()));
        }
        out.write('\n');
        return out.toByteArray();
    }

    /** A comment line, which the client ignores: a heartbeat that keeps intermediaries from closing an idle stream. */
    static byte[] comment(String text) {
        return (":" + oneLine("comment", text) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void field(ByteArrayOutputStream out, String name, String value) {
        out.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
        out.write(':');
        if (!value.isEmpty()) {
            out.write(' ');
            out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        }
        out.write('\n');
    }

    @Override
    public String toString() {
        return new String(encode(), StandardCharsets.UTF_8);
    }
}
