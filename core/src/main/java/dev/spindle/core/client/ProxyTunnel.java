// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.HeadCollector;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A tunnel through an HTTP proxy (RFC 9110 9.3.6), without any I/O: on the socket to the proxy it
 * sends {@code CONNECT host:port} and reads the proxy's answer; a 2xx opens the tunnel, and from
 * then on every byte and call goes to the connection inside (TLS around the client's connection
 * for {@code https:}, the client's own for {@code http:}), which sees its socket connected only
 * then. Any other answer, or a close before one, is that connection's connect failure, whose
 * message names the proxy's status line.
 */
final class ProxyTunnel implements OutboundConnection {
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private final OutboundConnection inner;
    private final String target;
    private final String proxy;
    /** The CONNECT request. */
    private final OutputBuffer request;
    private HeadCollector head = new HeadCollector();
    private boolean connected;
    private boolean open;
    private boolean over;

    /**
     * A tunnel to {@code target} through {@code proxy}.
     *
     * @param inner the connection inside the tunnel
     * @param target {@code host:port} of the destination, as CONNECT names it
     * @param proxy {@code host:port} of the proxy, for messages
     */
    ProxyTunnel(OutboundConnection inner, String target, String proxy) {
        this.inner = inner;
        this.target = target;
        this.proxy = proxy;
        byte[] bytes = ("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        this.request = new OutputBuffer(bytes.length);
        request.put(bytes);
    }

    @Override
    public Next connected() {
        connected = true;
        return next();
    }

    @Override
    public Next connectFailed(IOException cause) {
        over = true;
        return inner.connectFailed(cause);
    }

    @Override
    public Next received(ByteBuffer src) {
        if (open) {
            return inner.received(src);
        }
        if (over) {
            src.position(src.limit());
            return Next.CLOSE;
        }
        HeadCollector.Head answer;
        try {
            answer = head.collect(src);
        } catch (HeadCollector.TooLarge e) {
            return refused("an answer to CONNECT with " + e.getMessage());
        }
        return answer == null ? next() : answered(answer);
    }

    /** The proxy's answer arrived whole: a 2xx opens the tunnel, with what followed it for the connection inside. */
    private Next answered(HeadCollector.Head answer) {
        String statusLine = answer.text().substring(0, answer.text().indexOf('\r'));
        head = null;
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12 || statusLine.charAt(9) != '2') {
            return refused("\"" + statusLine + "\"");
        }
        open = true;
        inner.connected();
        if (answer.rest().length > 0) {
            inner.received(ByteBuffer.wrap(answer.rest()));
        }
        return next();
    }

    private Next refused(String answer) {
        over = true;
        head = null;
        return inner.connectFailed(new IOException("the proxy " + proxy + " answered " + answer + " to CONNECT " + target));
    }

    @Override
    public Next endOfInput() {
        if (open) {
            return inner.endOfInput();
        }
        if (!over) {
            over = true;
            inner.connectFailed(new IOException("the proxy " + proxy + " closed the connection before answering CONNECT " + target));
        }
        return Next.CLOSE;
    }

    @Override
    public Next resume() {
        inner.resume();
        return next();
    }

    @Override
    public Next next() {
        if (open) {
            return inner.next();
        }
        if (over || inner.next() == Next.CLOSE) {
            return Next.CLOSE;
        }
        return connected ? Next.of(true, pending() > 0) : Next.WAIT;
    }

    private int pending() {
        return request.pending();
    }

    @Override
    public State state() {
        if (open) {
            return inner.state();
        }
        return over ? State.CLOSED : connected && pending() > 0 ? State.SENDING : State.HANDLING;
    }

    @Override
    public ByteBuffer outbound() {
        if (open) {
            return inner.outbound();
        }
        return connected && !over && pending() > 0 ? request.view() : NOTHING;
    }

    @Override
    public Next written(int bytes) {
        if (open) {
            return inner.written(bytes);
        }
        if (bytes > pending()) {
            throw new IllegalArgumentException(bytes + " bytes reported written, " + pending() + " pending");
        }
        request.written(bytes);
        return next();
    }

    @Override
    public void closeAfterResponse() {
        inner.closeAfterResponse();
    }

    @Override
    public void drain() {
        inner.drain();
    }

    @Override
    public Next tick(long now) {
        // until the tunnel is open the connection inside keeps the connect timeout
        inner.tick(now);
        return next();
    }

    @Override
    public long nanosToTick(long now) {
        return inner.nanosToTick(now);
    }

    @Override
    public void closed() {
        inner.closed();
    }

    @Override
    public String toString() {
        return "tunnel through " + proxy + " to " + target + (open ? "" : " (opening)") + ": " + inner;
    }
}
