// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/** A WebSocket: an echo client, a broadcast subscriber (never sends), or the broadcast publisher. */
final class WsConn extends Conn implements WsParser.Sink {
    enum Role { ECHO, SUBSCRIBER, PUBLISHER }

    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    private static final long CLOSE_WAIT_NANOS = 5_000_000_000L;

    final Role role;
    private final String path;
    private final WsParser parser;
    private String accept;
    private boolean awaiting;
    private long sentAt;
    private final Publishing publishing;

    WsConn(Loop loop, Role role, String path) {
        super(loop);
        this.role = role;
        this.path = path;
        this.parser = new WsParser(this, role == Role.SUBSCRIBER ? Tracker.SEQ_WIDTH : 0);
        this.publishing = role == Role.PUBLISHER ? new Publishing(loop) : null;
    }

    @Override
    boolean isSubscriber() {
        return role == Role.SUBSCRIBER;
    }

    @Override
    boolean isPublisher() {
        return role == Role.PUBLISHER;
    }

    @Override
    byte[] request() {
        byte[] nonce = new byte[16];
        ThreadLocalRandom.current().nextBytes(nonce);
        String key = Base64.getEncoder().encodeToString(nonce);
        accept = acceptFor(key);
        return ascii("GET " + path + " HTTP/1.1\r\nHost: " + authority() + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n");
    }

    static String acceptFor(String key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.ISO_8859_1));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    String checkHead(int code, Headers headers) {
        if (code != 101) {
            return "status_" + code;
        }
        if (!"websocket".equalsIgnoreCase(headers.get("upgrade")) || !headers.hasToken("connection", "upgrade")) {
            return "not_an_upgrade";
        }
        if (!accept.equals(headers.get("sec-websocket-accept"))) {
            return "bad_accept";
        }
        if (headers.get("sec-websocket-extensions") != null) {
            return "unrequested_extension";
        }
        accept = null;
        return null;
    }

    @Override
    void opened() {
        super.opened();
        if (publishing != null) {
            run.tracker.publisherLoop(loop);
            loop.publisher = this;
        }
    }

    @Override
    void onData(byte[] b, int from, int to) {
        parser.feed(b, from, to);
    }

    @Override
    void onRun(long now) {
        if (role == Role.ECHO) {
            sendEcho();
        }
    }

    private void sendEcho() {
        awaiting = true;
        loop.outstanding++;
        int n = loop.frame(1, loop.payload, run.options.size(), -1);
        sentAt = System.nanoTime();
        send(n);
    }

    @Override
    void pump(long now) {
        publishing.expire(now);
        while (status == OPEN && run.phase == Run.RUN && publishing.canPublish()) {
            long seq = publishing.next();
            int n = loop.frame(1, loop.payload, run.options.size(), seq);
            publishing.sent(seq, System.nanoTime());
            send(n);
        }
    }

    @Override
    void endPublishing() {
        publishing.expireAll();
    }

    @Override
    boolean drained() {
        return run.tracker.unfinished.get() == 0;
    }

    @Override
    public void onText(long length, long seq) {
        if (status != OPEN) {
            return;
        }
        long now = loop.readNanos;
        switch (role) {
            case ECHO -> {
                if (!awaiting) {
                    loop.error("unexpected_message");
                    return;
                }
                awaiting = false;
                loop.outstanding--;
                if (length != run.options.size()) {
                    loop.error("length_mismatch");
                } else {
                    loop.complete(now, now - sentAt);
                }
                if (run.phase == Run.RUN) {
                    sendEcho();
                }
            }
            case SUBSCRIBER -> loop.delivered(length, seq, now);
            case PUBLISHER -> {
            }
        }
    }

    @Override
    public void onPing(byte[] payload, int length) {
        if (status == OPEN || status == CLOSING) {
            send(loop.frame(10, payload, length, -1));
        }
    }

    @Override
    public void onClose(int code) {
        parser.stop();
        loop.closeCode(Integer.toString(code));
        if (status == OPEN) {
            loop.error("server_close_during_run");
        }
        close();
    }

    @Override
    public void onProtocolError(String kind) {
        loop.error("protocol_" + kind);
        close();
    }

    @Override
    void startClose(long now) {
        if (status != OPEN) {
            close();
            return;
        }
        status = CLOSING;
        deadline = now + CLOSE_WAIT_NANOS;
        loop.closePayload[0] = (byte) (1000 >> 8);
        loop.closePayload[1] = (byte) (1000 & 0xff);
        send(loop.frame(8, loop.closePayload, 2, -1));
    }

    @Override
    void close() {
        if (awaiting) {
            awaiting = false;
            loop.outstanding--;
        }
        parser.stop();
        super.close();
    }

    @Override
    void onEof() {
        if (status == CLOSING) {
            loop.closeCode("eof_without_close");
        }
        super.onEof();
    }
}
