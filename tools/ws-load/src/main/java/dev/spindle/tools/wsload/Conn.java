// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One client socket on one selector thread: the connect, an HTTP/1.1 request and its response head
 * (the only place bytes are turned into strings), then the protocol's bytes. Writes go straight to the
 * socket; only what the socket did not take is copied, into a per-connection backlog.
 */
abstract class Conn {
    static final int NEW = 0;
    static final int CONNECTING = 1;
    static final int HANDSHAKE = 2;
    static final int OPEN = 3;
    static final int CLOSING = 4;
    static final int CLOSED = 5;

    private static final int MAX_HEAD = 16 * 1024;
    private static final int MAX_BACKLOG = 4 * 1024 * 1024;

    final Loop loop;
    final Run run;
    SocketChannel channel;
    SelectionKey key;
    int status = NEW;
    long deadline;
    private ByteBuffer head;
    private ByteBuffer backlog;

    Conn(Loop loop) {
        this.loop = loop;
        this.run = loop.run;
    }

    /** Starts the non-blocking connect. */
    final void start(long now) {
        status = CONNECTING;
        deadline = now + run.options.openTimeoutNanos();
        try {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            key = channel.register(loop.selector, SelectionKey.OP_CONNECT, this);
            if (channel.connect(run.address)) {
                connected();
            }
        } catch (ConnectException e) {
            openFailed("connect_refused");
        } catch (IOException | RuntimeException e) {
            openFailed("connect_" + e.getClass().getSimpleName());
        }
    }

    final void onConnectable() {
        try {
            if (channel.finishConnect()) {
                connected();
            }
        } catch (ConnectException e) {
            openFailed("connect_refused");
        } catch (IOException e) {
            openFailed("connect_" + e.getClass().getSimpleName());
        }
    }

    private void connected() {
        status = HANDSHAKE;
        key.interestOps(SelectionKey.OP_READ);
        byte[] request = request();
        if (request == null) {
            opened();
            return;
        }
        head = ByteBuffer.allocate(1024);
        ByteBuffer out = loop.writeBuffer(request.length);
        out.put(request);
        send(out.position());
    }

    /** The HTTP request that opens this connection, or null when the TCP connection is enough. */
    abstract byte[] request();

    /**
     * Checks the response head (status line and headers, CRLFs and all); null when it opens the
     * connection, else the failure's reason.
     */
    abstract String checkHead(int status, Headers headers);

    /** The connection is open: counted, and the protocol's bytes begin. */
    void opened() {
        status = OPEN;
        head = null;
        run.opened(this);
        loop.openFinished(this);
    }

    /** The protocol's bytes {@code b[from, to)}, read at {@code loop.readNanos}. */
    abstract void onData(byte[] b, int from, int to);

    /** The run's traffic starts. */
    void onRun(long now) {
    }

    /** Whether this connection receives the published messages (broadcast and sse). */
    boolean isSubscriber() {
        return false;
    }

    /** Whether this connection publishes (broadcast and sse). */
    boolean isPublisher() {
        return false;
    }

    /** The publisher's turn in its loop, once per iteration: expire old messages, publish while allowed. */
    void pump(long now) {
    }

    /** The run is over: the publisher's unfinished messages are counted incomplete. */
    void endPublishing() {
    }

    /** Whether the publisher's messages have all finished (delivered or expired). */
    boolean drained() {
        return true;
    }

    /** The run ends: close this connection (or begin its closing handshake). */
    void startClose(long now) {
        close();
    }

    /** The server closed the connection (EOF). */
    void onEof() {
        if (status == OPEN) {
            loop.error("closed_by_server");
        }
        close();
    }

    final void onReadable() {
        byte[] array = loop.readArray;
        ByteBuffer buffer = loop.readBuffer;
        while (status == HANDSHAKE || status == OPEN || status == CLOSING) {
            buffer.clear();
            int n;
            try {
                n = channel.read(buffer);
            } catch (IOException e) {
                if (status == HANDSHAKE) {
                    openFailed("read_" + e.getClass().getSimpleName());
                } else {
                    if (status == OPEN) {
                        loop.error("io_error");
                    }
                    close();
                }
                return;
            }
            if (n <= 0) {
                if (n < 0) {
                    if (status == HANDSHAKE) {
                        openFailed("closed_during_handshake");
                    } else {
                        onEof();
                    }
                }
                return;
            }
            loop.readNanos = System.nanoTime();
            if (status == HANDSHAKE) {
                handshakeBytes(array, n);
            } else {
                onData(array, 0, n);
            }
            if (n < array.length) {
                return;
            }
        }
    }

    private void handshakeBytes(byte[] array, int n) {
        if (head.remaining() < n) {
            if (head.position() + n > MAX_HEAD) {
                openFailed("response_head_too_large");
                return;
            }
            ByteBuffer bigger = ByteBuffer.allocate(Math.min(MAX_HEAD, Math.max(head.capacity() * 2, head.position() + n)));
            head.flip();
            bigger.put(head);
            head = bigger;
        }
        int from = Math.max(0, head.position() - 3);
        head.put(array, 0, n);
        byte[] h = head.array();
        int end = Headers.endOfHead(h, from, head.position());
        if (end < 0) {
            return;
        }
        int len = head.position();
        Headers headers = Headers.parse(h, end);
        String reason = headers == null ? "bad_response_head" : checkHead(headers.status(), headers);
        if (reason != null) {
            openFailed(reason);
            return;
        }
        byte[] rest = h;
        opened();
        if (end < len && status == OPEN) {
            onData(rest, end, len);
        }
    }

    /** Writes {@code loop.writeArray[0, length)}, keeping what the socket did not take. */
    final void send(int length) {
        if (status == CLOSED) {
            return;
        }
        ByteBuffer out = loop.writeBuffer;
        out.clear().limit(length);
        try {
            if (backlog == null || backlog.position() == 0) {
                channel.write(out);
                if (!out.hasRemaining()) {
                    return;
                }
            }
            int rest = out.remaining();
            if (backlog == null) {
                backlog = ByteBuffer.allocate(Math.max(1024, rest));
            } else if (backlog.remaining() < rest) {
                if (backlog.position() + rest > MAX_BACKLOG) {
                    loop.error("write_backlog_full");
                    close();
                    return;
                }
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(backlog.capacity() * 2, backlog.position() + rest));
                backlog.flip();
                bigger.put(backlog);
                backlog = bigger;
            }
            backlog.put(out);
            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        } catch (IOException e) {
            writeFailed();
        }
    }

    final void onWritable() {
        if (backlog == null) {
            key.interestOps(SelectionKey.OP_READ);
            return;
        }
        try {
            backlog.flip();
            channel.write(backlog);
            backlog.compact();
            if (backlog.position() == 0) {
                key.interestOps(SelectionKey.OP_READ);
                if (backlog.capacity() > 64 * 1024) {
                    backlog = null;
                }
            }
        } catch (IOException e) {
            writeFailed();
        }
    }

    private void writeFailed() {
        if (status == HANDSHAKE) {
            openFailed("write_error");
        } else {
            if (status == OPEN) {
                loop.error("io_error");
            }
            close();
        }
    }

    /** Opening failed: counted by reason, the socket closed. */
    final void openFailed(String reason) {
        if (status != CONNECTING && status != HANDSHAKE) {
            return;
        }
        loop.openFailure(reason);
        close();
        loop.openFinished(this);
    }

    /** Closes the socket (once). */
    void close() {
        if (status == CLOSED) {
            return;
        }
        int was = status;
        status = CLOSED;
        head = null;
        backlog = null;
        loop.closed(this, was);
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            loop.error("close_error");
        }
    }

    /** "host:port" for the Host header. */
    final String authority() {
        return run.options.host() + ":" + run.options.port();
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static String lower(String s) {
        return s == null ? null : s.toLowerCase(Locale.ROOT);
    }
}
