// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.HttpException;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A WebSocket route on a sans-I/O connection from {@link Connection#open}: the handshake and its
 * refusals, then the socket (echo, ping and pong, both closing handshakes, protocol errors, sends
 * from other threads with their stages, the send queue's bound, pings and the idle timeout, the
 * drain), with the client's frames written here and the server's read back byte by byte.
 */
class WebSocketConnectionTest {
    /** RFC 6455 1.3's example key and the accept value it gives. */
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";
    private static final String ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
    private static final Random RANDOM = new Random(7);

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final AtomicReference<WebSocket> socket = new AtomicReference<>();
    private final AtomicInteger wakeups = new AtomicInteger();

    /** Echoes text and binary messages, and records every callback. */
    private final WebSocket.Endpoint echo = new WebSocket.Endpoint() {
        @Override
        public void onOpen(WebSocket s) {
            socket.set(s);
            events.add("open " + s.request().pathParam("room") + " " + s.subprotocol());
        }

        @Override
        public void onText(WebSocket s, String message) {
            events.add("text " + message);
            if (message.equals("throw")) {
                throw new IllegalStateException("test: an endpoint failure (expected in this test's log)");
            }
            s.sendText(message);
        }

        @Override
        public void onBinary(WebSocket s, ByteBuffer message) {
            events.add("binary " + message.remaining());
            s.sendBinary(message);
        }

        @Override
        public void onPing(WebSocket s, ByteBuffer payload) {
            events.add("ping " + StandardCharsets.UTF_8.decode(payload));
        }

        @Override
        public void onPong(WebSocket s, ByteBuffer payload) {
            events.add("pong " + StandardCharsets.UTF_8.decode(payload));
        }

        @Override
        public void onClose(WebSocket s, int code, String reason) {
            events.add("close " + code + " " + reason);
        }

        @Override
        public void onError(WebSocket s, Throwable error) {
            events.add("error " + error.getMessage());
        }
    };

    private Connection open(WebSocket.Options options) {
        Router router = Router.builder()
                .filter((req, res, chain) -> {
                    if (req.queryParam("deny") != null) {
                        throw new HttpException(401, "who are you");
                    }
                    res.header("Set-Cookie", "seen=1");
                    return chain.proceed();
                })
                .websocket("/chat/{room}", echo, options)
                .get("/plain", (req, res) -> res.text("plain"))
                .build();
        return Connection.open(router, ServerConfig.defaults().writeHighWaterMark(64 * 1024), null, wakeups::incrementAndGet);
    }

    private static String handshake(String target, String... extra) {
        StringBuilder s = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n");
        for (String line : extra) {
            s.append(line).append("\r\n");
        }
        return s.append("\r\n").toString();
    }

    /** A connection past the handshake, its 101 read; {@code head} gets the 101's text. */
    private Connection upgraded(WebSocket.Options options, StringBuilder head, String... extra) {
        Connection c = open(options);
        c.received(ascii(handshake("/chat/lobby", extra)));
        String answer = new String(drain(c), StandardCharsets.ISO_8859_1);
        head.append(answer);
        assertThat(answer).startsWith("HTTP/1.1 101 Switching Protocols\r\n").endsWith("\r\n\r\n");
        return c;
    }

    private Connection upgraded() {
        return upgraded(WebSocket.Options.defaults(), new StringBuilder());
    }

    @Test
    void theHandshakeIsAnswered101WithTheAcceptKeyAndTheFiltersFields() {
        StringBuilder head = new StringBuilder();
        upgraded(WebSocket.Options.defaults().subprotocols("v2.chat", "v1.chat"), head,
                "Sec-WebSocket-Protocol: v1.chat, v2.chat");
        assertThat(head.toString()).contains("\r\nUpgrade: websocket\r\n", "\r\nConnection: Upgrade\r\n",
                "\r\nSec-WebSocket-Accept: " + ACCEPT + "\r\n", "\r\nSec-WebSocket-Protocol: v2.chat\r\n", "\r\nSet-Cookie: seen=1\r\n");
        assertThat(head.toString()).doesNotContain("Content-Length", "Sec-WebSocket-Extensions");
        assertThat(events).containsExactly("open lobby v2.chat");
    }

    static Stream<Arguments> refusals() {
        String good = handshake("/chat/lobby");
        return Stream.of(
                Arguments.of("no Upgrade", good.replace("Upgrade: websocket\r\n", ""), 426, "Upgrade: websocket"),
                Arguments.of("another upgrade", good.replace("Upgrade: websocket", "Upgrade: h2c"), 426, "Upgrade: websocket"),
                Arguments.of("no Connection: Upgrade", good.replace("Connection: Upgrade", "Connection: keep-alive"), 400, "Connection: Upgrade"),
                Arguments.of("version 8", good.replace("Version: 13", "Version: 8"), 426, "Sec-WebSocket-Version: 13"),
                Arguments.of("no version", good.replace("Sec-WebSocket-Version: 13\r\n", ""), 426, "Sec-WebSocket-Version: 13"),
                Arguments.of("no key", good.replace("Sec-WebSocket-Key: " + KEY + "\r\n", ""), 400, "Sec-WebSocket-Key"),
                Arguments.of("a short key", good.replace(KEY, "c2hvcnQ="), 400, "Sec-WebSocket-Key"),
                Arguments.of("two keys", good.replace("\r\n\r\n", "\r\nSec-WebSocket-Key: " + KEY + "\r\n\r\n"), 400, "Sec-WebSocket-Key"),
                Arguments.of("HTTP/1.0", good.replace("HTTP/1.1", "HTTP/1.0"), 400, "HTTP/1.1"),
                Arguments.of("a body", good.replace("\r\n\r\n", "\r\nContent-Length: 2\r\n\r\nhi"), 400, "no body"),
                Arguments.of("a filter's refusal", handshake("/chat/lobby?deny=1"), 401, "who are you"),
                Arguments.of("POST", good.replace("GET ", "POST "), 405, "Allow: GET"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aRequestThatIsNoValidHandshakeIsAnsweredInHttpAndTheConnectionServesOn(String name, String request, int status,
            String shown) {
        Connection c = open(WebSocket.Options.defaults());
        c.received(ascii(request + "GET /plain HTTP/1.1\r\nHost: x\r\n\r\n"));
        String answer = new String(drainAll(c), StandardCharsets.ISO_8859_1);
        assertThat(answer).startsWith("HTTP/1.1 " + status + " ").contains(shown);
        assertThat(events).as("no socket opened").isEmpty();
        if (!name.equals("HTTP/1.0")) {
            assertThat(answer).as("the next request is HTTP still").endsWith("\r\n\r\nplain");
        }
    }

    @Test
    void framesSentBehindTheHandshakeInOneReadAreRead() {
        Connection c = open(WebSocket.Options.defaults());
        byte[] request = handshake("/chat/lobby").getBytes(StandardCharsets.ISO_8859_1);
        c.received(ByteBuffer.wrap(concat(request, clientFrame(WebSocketFrames.TEXT, "early"))));
        String all = new String(drain(c), StandardCharsets.ISO_8859_1);
        int end = all.indexOf("\r\n\r\n") + 4;
        List<Frame> frames = frames(all.substring(end).getBytes(StandardCharsets.ISO_8859_1));
        assertThat(frames).containsExactly(new Frame(true, false, WebSocketFrames.TEXT, "early"));
    }

    @Test
    void textAndBinaryMessagesSplitAtEveryByteAreEchoed() {
        byte[] input = concat(clientFrame(false, WebSocketFrames.TEXT, "héllo, ".getBytes(StandardCharsets.UTF_8)),
                clientFrame(true, WebSocketFrames.CONTINUATION, "wörld".getBytes(StandardCharsets.UTF_8)),
                clientFrame(true, WebSocketFrames.BINARY, new byte[300]));
        for (int split = 1; split < input.length; split += 7) {
            events.clear();
            Connection c = upgraded();
            // payloads are unmasked in place: each round gets the masked bytes afresh
            byte[] fresh = input.clone();
            for (int at = 0; at < input.length; at += split) {
                c.received(ByteBuffer.wrap(fresh, at, Math.min(split, input.length - at)).slice());
            }
            List<Frame> echoed = frames(drain(c));
            assertThat(echoed).as("split every %d bytes", split).hasSize(2);
            assertThat(echoed.get(0)).isEqualTo(new Frame(true, false, WebSocketFrames.TEXT, "héllo, wörld"));
            assertThat(echoed.get(1).opcode()).isEqualTo(WebSocketFrames.BINARY);
            assertThat(echoed.get(1).payload()).hasSize(300);
            assertThat(events).containsExactly("open lobby null", "text héllo, wörld", "binary 300");
        }
    }

    @Test
    void aPingIsAnsweredWithAPongCarryingItsPayload() {
        Connection c = upgraded();
        c.received(ByteBuffer.wrap(clientFrame(WebSocketFrames.PING, "are you there")));
        assertThat(frames(drain(c))).containsExactly(new Frame(true, false, WebSocketFrames.PONG, "are you there"));
        c.received(ByteBuffer.wrap(clientFrame(WebSocketFrames.PONG, "unasked")));
        assertThat(events).containsExactly("open lobby null", "ping are you there", "pong unasked");
        assertThat(c.next()).isEqualTo(Next.READ);
    }

    @Test
    void aClientsCloseIsEchoedThenTheServerClosesFirst() {
        Connection c = upgraded();
        c.received(ByteBuffer.wrap(clientFrame(true, WebSocketFrames.CLOSE, WebSocketFrames.closePayload(1000, "bye"))));
        List<Frame> out = frames(drain(c));
        assertThat(out).hasSize(1);
        assertThat(out.getFirst().opcode()).isEqualTo(WebSocketFrames.CLOSE);
        assertThat(closeCode(out.getFirst())).isEqualTo(1000);
        assertThat(events).containsExactly("open lobby null", "close 1000 bye");
        assertThat(c.next()).as("its output shut, the connection drops what still comes").isEqualTo(Next.LINGER);
        assertThat(socket.get().isOpen()).isFalse();
        assertThat(socket.get().sendText("late").toCompletableFuture()).isCompletedExceptionally();
        assertThat(c.endOfInput()).isEqualTo(Next.CLOSE);
        c.closed();
        assertThat(socket.get().closed().toCompletableFuture()).isCompleted();
    }

    @Test
    void aCloseWithoutACodeIsEchoedWithoutOne() {
        Connection c = upgraded();
        c.received(ByteBuffer.wrap(clientFrame(WebSocketFrames.CLOSE, "")));
        assertThat(frames(drain(c))).containsExactly(new Frame(true, false, WebSocketFrames.CLOSE, ""));
        assertThat(events).contains("close 1005 ");
    }

    @Test
    void aTickBeforeTheEchoedCloseIsWrittenKeepsItForTheWrite() {
        // a strategy that writes asynchronously (io_uring) may tick while the echo's send is in flight
        Connection c = upgraded(WebSocket.Options.defaults().closeTimeout(Duration.ofMillis(200)), new StringBuilder());
        c.received(ByteBuffer.wrap(clientFrame(true, WebSocketFrames.CLOSE, WebSocketFrames.closePayload(1000, "bye"))));
        long now = System.nanoTime();
        assertThat(c.nanosToTick(now)).as("no close timeout once the client's close is in").isGreaterThan(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(c.tick(now)).isEqualTo(Next.READ_WRITE);
        assertThat(closeCode(frames(drain(c)).getFirst())).isEqualTo(1000);
        assertThat(c.next()).isEqualTo(Next.LINGER);
        assertThat(events).last().isEqualTo("close 1000 bye");
    }

    static Stream<Arguments> protocolErrors() {
        byte[] unmasked = WebSocketFrames.frame(true, false, WebSocketFrames.TEXT, "x".getBytes(StandardCharsets.UTF_8), null);
        byte[] badUtf8 = clientFrame(true, WebSocketFrames.TEXT, new byte[] {(byte) 0xC3, 0x28});
        byte[] bigPing = clientFrame(true, WebSocketFrames.PING, new byte[126]);
        byte[] tooBig = clientFrame(true, WebSocketFrames.BINARY, new byte[1025]);
        byte[] reserved = clientFrame(true, 0x3, new byte[1]);
        byte[] lone = clientFrame(true, WebSocketFrames.CONTINUATION, new byte[1]);
        byte[] compressed = clientFrame(true, true, WebSocketFrames.TEXT, new byte[] {1});
        return Stream.of(
                Arguments.of("an unmasked frame", unmasked, 1002),
                Arguments.of("invalid UTF-8", badUtf8, 1007),
                Arguments.of("a ping over 125 bytes", bigPing, 1002),
                Arguments.of("a message over the limit", tooBig, 1009),
                Arguments.of("a reserved opcode", reserved, 1002),
                Arguments.of("a continuation of nothing", lone, 1002),
                Arguments.of("RSV1 without permessage-deflate", compressed, 1002));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("protocolErrors")
    void aProtocolErrorClosesWithItsCodeAndNothingMoreIsRead(String name, byte[] frame, int code) {
        Connection c = upgraded(WebSocket.Options.defaults().maxMessageSize(1024), new StringBuilder());
        c.received(ByteBuffer.wrap(concat(frame, clientFrame(WebSocketFrames.TEXT, "after"))));
        List<Frame> out = frames(drain(c));
        assertThat(out).as("only the close frame").hasSize(1);
        assertThat(closeCode(out.getFirst())).isEqualTo(code);
        assertThat(events).hasSize(2).last().asString().startsWith("close " + code + " ");
        assertThat(c.next()).isEqualTo(Next.LINGER);
    }

    @Test
    void anEndpointThatThrowsGetsOnErrorAndTheSocketCloses1011() {
        Connection c = upgraded();
        c.received(ByteBuffer.wrap(clientFrame(WebSocketFrames.TEXT, "throw")));
        List<Frame> out = frames(drain(c));
        assertThat(closeCode(out.getLast())).isEqualTo(1011);
        assertThat(events).containsExactly("open lobby null", "text throw",
                "error test: an endpoint failure (expected in this test's log)", "close 1011 internal error");
    }

    @Test
    void aSendFromAnotherThreadWakesTheConnectionAndCompletesOnceWritten() throws Exception {
        Connection c = upgraded();
        int before = wakeups.get();
        AtomicReference<CompletableFuture<Void>> stage = new AtomicReference<>();
        Thread sender = Thread.ofPlatform().start(() -> stage.set(socket.get().sendText("news").toCompletableFuture()));
        sender.join();
        assertThat(wakeups.get()).as("the wakeup ran").isEqualTo(before + 1);
        assertThat(stage.get()).as("not written yet").isNotDone();
        assertThat(c.resume().writes()).isTrue();
        ByteBuffer out = c.outbound();
        assertThat(stage.get()).as("handed out, not written").isNotDone();
        c.written(out.remaining() - 1);
        assertThat(stage.get()).as("one byte short").isNotDone();
        c.written(1);
        assertThat(stage.get()).isCompleted();
    }

    @Test
    void sendsFromTheEndpointsOwnCallbackNeedNoWakeup() {
        Connection c = upgraded();
        int before = wakeups.get();
        c.received(ByteBuffer.wrap(clientFrame(WebSocketFrames.TEXT, "echo me")));
        assertThat(wakeups.get()).isEqualTo(before);
        assertThat(frames(drain(c))).containsExactly(new Frame(true, false, WebSocketFrames.TEXT, "echo me"));
    }

    @Test
    void aClientTooSlowForTheQueueIsDroppedReported1008AndMemoryStaysBounded() {
        Connection c = upgraded(WebSocket.Options.defaults().maxQueuedBytes(10_000), new StringBuilder());
        List<CompletableFuture<Void>> stages = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            stages.add(socket.get().sendBinary(ByteBuffer.allocate(1000)).toCompletableFuture());
        }
        assertThat(stages.subList(0, 9)).allMatch(s -> !s.isDone());
        assertThat(stages.subList(10, 20)).allMatch(CompletableFuture::isCompletedExceptionally);
        assertThat(c.resume()).as("ended at once: a close frame would wait behind unread output").isEqualTo(Next.CLOSE);
        assertThat(stages.subList(0, 9)).as("what was queued is dropped").allMatch(CompletableFuture::isCompletedExceptionally);
        assertThat(events).last().isEqualTo("close 1008 the client reads too slowly");
    }

    @Test
    void theServersCloseGoesBehindWhatWasQueuedAndWaitsForTheClientsAnswer() {
        Connection c = upgraded(WebSocket.Options.defaults().closeTimeout(Duration.ofMillis(200)), new StringBuilder());
        socket.get().sendText("last words");
        CompletableFuture<Void> over = socket.get().close(4000, "game over").toCompletableFuture();
        c.resume();
        List<Frame> out = frames(drain(c));
        assertThat(out.get(0)).isEqualTo(new Frame(true, false, WebSocketFrames.TEXT, "last words"));
        assertThat(closeCode(out.get(1))).isEqualTo(4000);
        assertThat(c.next()).as("waiting for the client's close").isEqualTo(Next.READ);
        c.received(ByteBuffer.wrap(clientFrame(true, WebSocketFrames.CLOSE, WebSocketFrames.closePayload(4000, ""))));
        assertThat(drain(c)).as("nothing more sent").isEmpty();
        assertThat(c.next()).isEqualTo(Next.LINGER);
        assertThat(events).last().isEqualTo("close 4000 ");
        c.closed();
        assertThat(over).isCompleted();
    }

    @Test
    void aClientThatNeverAnswersTheCloseIsDroppedAtTheCloseTimeout() {
        Connection c = upgraded(WebSocket.Options.defaults().closeTimeout(Duration.ofMillis(200)), new StringBuilder());
        socket.get().close(1000, "");
        c.resume();
        drain(c);
        long now = System.nanoTime();
        assertThat(c.tick(now)).isEqualTo(Next.READ);
        assertThat(c.nanosToTick(now)).isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(c.tick(now + TimeUnit.MILLISECONDS.toNanos(250))).isEqualTo(Next.CLOSE);
        assertThat(events).last().asString().startsWith("close 1006 ");
    }

    @Test
    void aQuietSocketIsPingedThenClosedAtTheIdleTimeout() {
        Connection c = upgraded(WebSocket.Options.defaults().pingInterval(Duration.ofSeconds(1)).idleTimeout(Duration.ofSeconds(3)),
                new StringBuilder());
        long now = System.nanoTime();
        assertThat(c.nanosToTick(now)).isBetween(TimeUnit.MILLISECONDS.toNanos(900), TimeUnit.SECONDS.toNanos(1));
        c.tick(now + TimeUnit.MILLISECONDS.toNanos(1100));
        assertThat(frames(drain(c))).containsExactly(new Frame(true, false, WebSocketFrames.PING, ""));
        c.tick(now + TimeUnit.MILLISECONDS.toNanos(1500));
        assertThat(drain(c)).as("one ping per interval").isEmpty();
        c.tick(now + TimeUnit.MILLISECONDS.toNanos(3100));
        List<Frame> out = frames(drain(c));
        assertThat(closeCode(out.getLast())).isEqualTo(1001);
    }

    @Test
    void aDrainingServerClosesItsSockets1001() {
        Connection c = upgraded();
        int before = wakeups.get();
        c.drain();
        assertThat(wakeups.get()).isEqualTo(before + 1);
        c.resume();
        assertThat(closeCode(frames(drain(c)).getLast())).isEqualTo(1001);
    }

    @Test
    void aReadOnlyInputIsCopiedNotUnmaskedInPlace() {
        Connection c = upgraded();
        byte[] frame = clientFrame(WebSocketFrames.TEXT, "ro");
        byte[] copy = frame.clone();
        c.received(ByteBuffer.wrap(frame).asReadOnlyBuffer());
        assertThat(frame).isEqualTo(copy);
        assertThat(frames(drain(c))).containsExactly(new Frame(true, false, WebSocketFrames.TEXT, "ro"));
    }

    @Test
    void permessageDeflateIsAgreedWhenOnAndMessagesGoBothWaysCompressed() throws Exception {
        StringBuilder head = new StringBuilder();
        Connection c = upgraded(WebSocket.Options.defaults().compression(true), head,
                "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits");
        assertThat(head.toString()).contains("\r\nSec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover");
        String text = "compress me ".repeat(50);
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        byte[] compressed = PerMessageDeflate.compress(deflater, text.getBytes(StandardCharsets.UTF_8), 0, text.length());
        c.received(ByteBuffer.wrap(clientFrame(true, true, WebSocketFrames.TEXT, compressed)));
        Frame echoed = frames(drain(c)).getFirst();
        assertThat(echoed.rsv1()).as("sent compressed").isTrue();
        assertThat(echoed.payload().length).isLessThan(text.length() / 4);
        Inflater inflater = new Inflater(true);
        inflater.setInput(concat(echoed.payload(), PerMessageDeflate.TAIL));
        byte[] plain = new byte[text.length() + 16];
        int n = inflater.inflate(plain);
        assertThat(new String(plain, 0, n, StandardCharsets.UTF_8)).isEqualTo(text);
    }

    @Test
    void compressionIsNotAgreedUnlessTheRouteTurnsItOn() {
        StringBuilder head = new StringBuilder();
        upgraded(WebSocket.Options.defaults(), head, "Sec-WebSocket-Extensions: permessage-deflate");
        assertThat(head.toString()).doesNotContain("Sec-WebSocket-Extensions");
    }

    @Test
    void aBroadcastReachesEveryOpenSocketInTheFrameItAgreedOnAndCountsThem() throws Exception {
        Connection plain = upgraded();
        WebSocket first = socket.get();
        Connection deflating = upgraded(WebSocket.Options.defaults().compression(true), new StringBuilder(),
                "Sec-WebSocket-Extensions: permessage-deflate");
        WebSocket second = socket.get();
        Connection closing = upgraded();
        WebSocket third = socket.get();
        third.close(1000, "");
        String text = "to everyone ".repeat(20);
        CompletableFuture<Integer> written = WebSocket.broadcast(List.of(first, second, third), text).toCompletableFuture();
        assertThat(written).isNotDone();
        // the wakeups ran: each connection's thread takes the message
        plain.resume();
        deflating.resume();
        closing.resume();
        assertThat(frames(drain(plain))).containsExactly(new Frame(true, false, WebSocketFrames.TEXT, text));
        Frame compressed = frames(drain(deflating)).getFirst();
        assertThat(compressed.rsv1()).isTrue();
        Inflater inflater = new Inflater(true);
        inflater.setInput(concat(compressed.payload(), PerMessageDeflate.TAIL));
        byte[] inflated = new byte[text.length() + 16];
        assertThat(new String(inflated, 0, inflater.inflate(inflated), StandardCharsets.UTF_8)).isEqualTo(text);
        assertThat(frames(drain(closing))).as("only its close frame").hasSize(1);
        assertThat(written.get(1, TimeUnit.SECONDS)).as("written to the two open sockets").isEqualTo(2);
    }

    @Test
    void theClientGoingAwayWithoutACloseIs1006() {
        Connection c = upgraded();
        assertThat(c.endOfInput()).isEqualTo(Next.CLOSE);
        assertThat(events).last().asString().startsWith("close 1006 ");
        c.closed();
        assertThat(events).as("reported once").hasSize(2);
    }

    /** A blocking endpoint: each message waits for the gate, then is echoed once its thread saw the echo written. */
    private Connection blockingUpgraded(java.util.concurrent.Semaphore gate, List<String> threads, long maxMessage) {
        WebSocket.Endpoint slow = WebSocket.Endpoint.blocking(new WebSocket.Endpoint() {
            @Override
            public void onOpen(WebSocket s) {
                socket.set(s);
            }

            @Override
            public void onText(WebSocket s, String message) throws Exception {
                threads.add(Thread.currentThread().isVirtual() + " " + message);
                if (message.equals("throw")) {
                    throw new IllegalStateException("test: a blocking endpoint failure (expected in this test's log)");
                }
                gate.acquire();
                // blocking on its own send is allowed here: the connection's thread writes it meanwhile
                s.sendText(message).toCompletableFuture().get(5, TimeUnit.SECONDS);
            }

            @Override
            public void onClose(WebSocket s, int code, String reason) {
                threads.add("close " + code);
            }
        });
        Router router = Router.builder().websocket("/chat/{room}", slow, WebSocket.Options.defaults().maxMessageSize(maxMessage)).build();
        Connection c = Connection.open(router, ServerConfig.defaults(), null, wakeups::incrementAndGet);
        c.received(ascii(handshake("/chat/lobby")));
        drain(c);
        return c;
    }

    @Test
    void aBlockingEndpointRunsOnItsOwnThreadInOrderAndMayWaitForItsSends() throws Exception {
        java.util.concurrent.Semaphore gate = new java.util.concurrent.Semaphore(0);
        List<String> threads = new CopyOnWriteArrayList<>();
        Connection c = blockingUpgraded(gate, threads, 1 << 20);
        c.received(ByteBuffer.wrap(concat(clientFrame(WebSocketFrames.TEXT, "one"), clientFrame(WebSocketFrames.TEXT, "two"))));
        assertThat(c.next()).as("the connection's thread is not held by the blocked callback").isEqualTo(Next.READ);
        gate.release(2);
        List<Frame> echoed = new ArrayList<>();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); echoed.size() < 2 && System.nanoTime() < end; ) {
            c.resume();
            echoed.addAll(frames(drain(c)));
            Thread.sleep(1);
        }
        assertThat(echoed).containsExactly(new Frame(true, false, WebSocketFrames.TEXT, "one"), new Frame(true, false, WebSocketFrames.TEXT, "two"));
        assertThat(threads).containsExactly("true one", "true two");
    }

    @Test
    void aBlockingEndpointFarBehindHoldsTheInputBackUntilItCatchesUp() throws Exception {
        java.util.concurrent.Semaphore gate = new java.util.concurrent.Semaphore(0);
        List<String> threads = new CopyOnWriteArrayList<>();
        Connection c = blockingUpgraded(gate, threads, 50_000);
        String big = "x".repeat(40_000);
        c.received(ByteBuffer.wrap(concat(clientFrame(WebSocketFrames.TEXT, big), clientFrame(WebSocketFrames.TEXT, big))));
        assertThat(c.next().reads()).as("160 KB of text waiting for the endpoint, over its 64 KiB bound").isFalse();
        int before = wakeups.get();
        gate.release(2);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); !c.resume().reads() && System.nanoTime() < end; ) {
            drain(c);
            Thread.sleep(1);
        }
        assertThat(c.next().reads()).as("caught up: reading again").isTrue();
        assertThat(wakeups.get()).as("the wakeup told the connection").isGreaterThan(before);
    }

    @Test
    void aBlockingEndpointThatThrowsClosesTheSocket1011() throws Exception {
        List<String> threads = new CopyOnWriteArrayList<>();
        Connection c = blockingUpgraded(new java.util.concurrent.Semaphore(0), threads, 1 << 20);
        c.received(ByteBuffer.wrap(clientFrame(WebSocketFrames.TEXT, "throw")));
        Frame close = null;
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); close == null && System.nanoTime() < end; ) {
            c.resume();
            List<Frame> out = frames(drain(c));
            close = out.isEmpty() ? null : out.getLast();
            Thread.sleep(1);
        }
        assertThat(closeCode(close)).isEqualTo(1011);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); threads.size() < 2 && System.nanoTime() < end; ) {
            Thread.sleep(1);
        }
        assertThat(threads).containsExactly("true throw", "close 1011");
    }

    record Frame(boolean fin, boolean rsv1, int opcode, byte[] payload) {
        Frame(boolean fin, boolean rsv1, int opcode, String text) {
            this(fin, rsv1, opcode, text.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Frame f && f.fin == fin && f.rsv1 == rsv1 && f.opcode == opcode && java.util.Arrays.equals(f.payload, payload);
        }

        @Override
        public int hashCode() {
            return opcode;
        }

        @Override
        public String toString() {
            return "Frame[" + opcode + (fin ? " fin" : "") + (rsv1 ? " rsv1" : "") + " " + new String(payload, StandardCharsets.UTF_8) + "]";
        }
    }

    /** The server's frames, read as RFC 6455 5.2 lays them out: unmasked, whole, nothing left over. */
    static List<Frame> frames(byte[] bytes) {
        List<Frame> frames = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(bytes);
        while (in.hasRemaining()) {
            int b0 = in.get() & 0xFF;
            int b1 = in.get() & 0xFF;
            assertThat(b1 & 0x80).as("a server's frames are not masked").isZero();
            long length = b1 & 0x7F;
            if (length == 126) {
                length = in.getShort() & 0xFFFF;
            } else if (length == 127) {
                length = in.getLong();
            }
            byte[] payload = new byte[(int) length];
            in.get(payload);
            frames.add(new Frame((b0 & 0x80) != 0, (b0 & 0x40) != 0, b0 & 0x0F, payload));
        }
        return frames;
    }

    private static int closeCode(Frame f) {
        assertThat(f.opcode()).isEqualTo(WebSocketFrames.CLOSE);
        return ((f.payload()[0] & 0xFF) << 8) | (f.payload()[1] & 0xFF);
    }

    private static byte[] clientFrame(int opcode, String text) {
        return clientFrame(true, opcode, text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] clientFrame(boolean fin, int opcode, byte[] payload) {
        return clientFrame(fin, false, opcode, payload);
    }

    private static byte[] clientFrame(boolean fin, boolean rsv1, int opcode, byte[] payload) {
        return WebSocketFrames.frame(fin, rsv1, opcode, payload, RANDOM);
    }

    private static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] drain(Connection c) {
        return dev.spindle.core.ConnectionBytes.drain(c);
    }

    private static byte[] drainAll(Connection c) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] b = drain(c); b.length > 0; b = drain(c)) {
            all.writeBytes(b);
        }
        return all.toByteArray();
    }
}
