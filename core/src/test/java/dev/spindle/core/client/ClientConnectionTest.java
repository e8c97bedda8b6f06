// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ClientConnection} driven the way a strategy drives it, with a clock the test moves: what
 * it writes, what it answers ({@link Next}), how responses complete requests in order, and how
 * every failure and timeout fails the requests pending on it.
 */
class ClientConnectionTest {
    private static final String DESTINATION = "example.test:8080";
    private static final long START = 1_000_000_000L;
    private static final ClientSettings SETTINGS = ClientSettings.defaults()
            .connectTimeout(Duration.ofSeconds(2)).responseTimeout(Duration.ofSeconds(5)).idleTimeout(Duration.ofSeconds(20));
    private static final String OK_5 = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";

    private long now = START;

    private ClientConnection connection(ClientSettings settings) {
        return new ClientConnection(DESTINATION, settings, () -> now);
    }

    private ClientConnection open(ClientSettings settings) {
        ClientConnection c = connection(settings);
        assertThat(c.connected()).isEqualTo(Next.READ);
        return c;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Takes everything the connection has to write, reporting it written as the strategy does. */
    static String drain(Connection c) {
        StringBuilder s = new StringBuilder();
        for (ByteBuffer out = c.outbound(); out.hasRemaining(); out = c.outbound()) {
            byte[] b = new byte[out.remaining()];
            out.get(b);
            s.append(new String(b, StandardCharsets.ISO_8859_1));
            c.written(b.length);
        }
        return s.toString();
    }

    private static Next feed(Connection c, String s) {
        ByteBuffer b = ByteBuffer.wrap(bytes(s));
        Next next = c.received(b);
        assertThat(b.hasRemaining()).as("received() consumes everything").isFalse();
        return next;
    }

    private static ClientResponse done(CompletableFuture<ClientResponse> f) {
        assertThat(f).as("completed").isCompleted();
        return f.join();
    }

    private static ClientException failure(CompletableFuture<ClientResponse> f) {
        assertThat(f).as("failed").isCompletedExceptionally();
        try {
            f.get();
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ClientException.class);
            return (ClientException) e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("not failed");
    }

    private static Reason reason(CompletableFuture<ClientResponse> f) {
        return failure(f).reason();
    }

    @Test
    void beforeConnectedItOnlyWaitsThenWritesWhatWasSent() {
        ClientConnection c = connection(SETTINGS);
        assertThat(c.next()).isEqualTo(Next.WAIT);
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/a"));
        assertThat(c.next()).as("nothing is written before the socket connects").isEqualTo(Next.WAIT);
        assertThat(c.outbound().hasRemaining()).isFalse();
        assertThat(c.state()).isEqualTo(Connection.State.HANDLING);
        assertThat(c.connected()).isEqualTo(Next.READ_WRITE);
        assertThat(c.state()).isEqualTo(Connection.State.SENDING);
        assertThat(drain(c)).isEqualTo("GET /a HTTP/1.1\r\nHost: example.test:8080\r\n\r\n");
        assertThat(c.next()).isEqualTo(Next.READ);
        assertThat(c.state()).isEqualTo(Connection.State.HANDLING);
        assertThat(feed(c, OK_5 + "hel")).isEqualTo(Next.READ);
        assertThat(c.state()).as("a response partly received").isEqualTo(Connection.State.READING_REQUEST);
        assertThat(f).isNotDone();
        assertThat(feed(c, "lo")).isEqualTo(Next.READ);
        ClientResponse r = done(f);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("hello");
        assertThat(c.state()).isEqualTo(Connection.State.IDLE);
        assertThat(c.isIdle()).isTrue();
        assertThat(c.isReusable()).isTrue();
    }

    @Test
    void partialWritesHandOutTheRestAndOverReportingIsRefused() {
        ClientConnection c = open(SETTINGS);
        c.send(ClientRequest.get("/partial"));
        int total = c.outbound().remaining();
        assertThat(c.written(10)).isEqualTo(Next.READ_WRITE);
        assertThat(c.outbound().remaining()).isEqualTo(total - 10);
        assertThatThrownBy(() -> c.written(total)).isInstanceOf(IllegalArgumentException.class);
        assertThat(c.written(0)).isEqualTo(Next.READ_WRITE);
        assertThat(c.written(total - 10)).isEqualTo(Next.READ);
        assertThat(c.outboundFile()).isNull();
    }

    @Test
    void keepAliveReusesTheConnectionForOneRequestAfterAnother() {
        ClientConnection c = open(SETTINGS);
        for (int i = 0; i < 3; i++) {
            CompletableFuture<ClientResponse> first = c.send(ClientRequest.get("/r" + i));
            CompletableFuture<ClientResponse> second = c.send(ClientRequest.get("/s" + i));
            assertThat(c.inFlight()).as("no pipelining by default").isEqualTo(1);
            assertThat(c.pending()).isEqualTo(2);
            assertThat(drain(c)).isEqualTo("GET /r" + i + " HTTP/1.1\r\nHost: example.test:8080\r\n\r\n");
            feed(c, OK_5 + "one-" + i);
            assertThat(done(first).bodyText()).isEqualTo("one-" + i);
            assertThat(drain(c)).as("the second request goes once the first is answered")
                    .isEqualTo("GET /s" + i + " HTTP/1.1\r\nHost: example.test:8080\r\n\r\n");
            feed(c, OK_5 + "two-" + i);
            assertThat(done(second).bodyText()).isEqualTo("two-" + i);
            assertThat(c.isIdle()).isTrue();
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() {
        ClientConnection c = open(SETTINGS.maxPipelined(3));
        List<CompletableFuture<ClientResponse>> futures = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            futures.add(c.send(ClientRequest.get("/p" + i)));
        }
        assertThat(c.inFlight()).isEqualTo(3);
        assertThat(drain(c)).isEqualTo("GET /p0 HTTP/1.1\r\nHost: example.test:8080\r\n\r\n"
                + "GET /p1 HTTP/1.1\r\nHost: example.test:8080\r\n\r\n"
                + "GET /p2 HTTP/1.1\r\nHost: example.test:8080\r\n\r\n");
        String answers = OK_5 + "zero!" + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\none\r\n0\r\n\r\n"
                + "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\ntwo";
        // one response and a half in the first read: the second completes only with the rest
        int cut = OK_5.length() + 5 + 40;
        feed(c, answers.substring(0, cut));
        assertThat(done(futures.get(0)).bodyText()).isEqualTo("zero!");
        assertThat(futures.get(1)).isNotDone();
        assertThat(drain(c)).as("a slot freed: the fourth request goes").startsWith("GET /p3 ");
        feed(c, answers.substring(cut));
        assertThat(done(futures.get(1)).bodyText()).isEqualTo("one");
        assertThat(done(futures.get(2)).status()).isEqualTo(404);
        assertThat(done(futures.get(2)).bodyText()).isEqualTo("two");
        feed(c, OK_5 + "three");
        assertThat(done(futures.get(3)).bodyText()).isEqualTo("three");
        assertThat(c.isIdle()).isTrue();
    }

    @Test
    void nothingIsPipelinedAfterANonIdempotentRequest() {
        ClientConnection c = open(SETTINGS.maxPipelined(4));
        CompletableFuture<ClientResponse> post = c.send(new ClientRequest("POST", "/orders").body(bytes("{}")));
        CompletableFuture<ClientResponse> get = c.send(ClientRequest.get("/after"));
        assertThat(c.inFlight()).isEqualTo(1);
        assertThat(drain(c)).isEqualTo("POST /orders HTTP/1.1\r\nHost: example.test:8080\r\nContent-Length: 2\r\n\r\n{}");
        feed(c, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
        assertThat(done(post).status()).isEqualTo(201);
        assertThat(drain(c)).startsWith("GET /after ");
        feed(c, OK_5 + "after");
        assertThat(done(get).bodyText()).isEqualTo("after");
    }

    @Test
    void aBodyDelimitedByTheCloseEndsWithTheInputAndTheConnection() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/stream"));
        drain(c);
        assertThat(feed(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npart one, ")).isEqualTo(Next.READ);
        assertThat(feed(c, "part two")).isEqualTo(Next.READ);
        assertThat(f).isNotDone();
        assertThat(c.endOfInput()).isEqualTo(Next.CLOSE);
        assertThat(done(f).bodyText()).isEqualTo("part one, part two");
        assertThat(c.isClosed()).isTrue();
        assertThat(c.state()).isEqualTo(Connection.State.CLOSED);
    }

    @Test
    void headAndBodilessStatusesHaveNoBody() {
        ClientConnection c = open(SETTINGS.maxPipelined(3));
        CompletableFuture<ClientResponse> head = c.send(new ClientRequest("HEAD", "/h"));
        CompletableFuture<ClientResponse> noContent = c.send(ClientRequest.get("/204"));
        CompletableFuture<ClientResponse> notModified = c.send(ClientRequest.get("/304"));
        assertThat(drain(c)).startsWith("HEAD /h HTTP/1.1\r\nHost: example.test:8080\r\n\r\nGET /204 ");
        feed(c, "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n"
                + "HTTP/1.1 204 No Content\r\n\r\n"
                + "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\nETag: \"v1\"\r\n\r\n");
        assertThat(done(head).header("content-length")).isEqualTo("1234");
        assertThat(done(head).bodyLength()).isZero();
        assertThat(done(noContent).status()).isEqualTo(204);
        assertThat(done(notModified).status()).isEqualTo(304);
        assertThat(done(notModified).header("ETag")).isEqualTo("\"v1\"");
        assertThat(done(notModified).bodyText()).isEmpty();
        assertThat(c.isIdle()).isTrue();
    }

    @Test
    void interimResponsesAreSkipped() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> f = c.send(new ClientRequest("PUT", "/doc").header("Expect", "100-continue")
                .body(bytes("data")));
        drain(c);
        feed(c, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n");
        assertThat(f).isNotDone();
        feed(c, "HTTP/1.1 201 Created\r\nLocation: /doc\r\nContent-Length: 0\r\n\r\n");
        ClientResponse r = done(f);
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.header("Link")).as("the interim response's fields are not the final one's").isNull();
        assertThat(r.header("location")).isEqualTo("/doc");
    }

    @Test
    void responseCarriesHeadersTrailersAndVersion() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/t"));
        drain(c);
        feed(c, "HTTP/1.1 200 Fine\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "7\r\ncaf\u00c3\u00a9 !\r\n0\r\nX-Checksum: abc\r\n\r\n");
        ClientResponse r = done(f);
        assertThat(r.version()).isEqualTo("HTTP/1.1");
        assertThat(r.reason()).isEqualTo("Fine");
        assertThat(r.headers("SET-COOKIE")).containsExactly("a=1", "b=2");
        assertThat(r.header("Set-Cookie")).isEqualTo("a=1");
        assertThat(r.headers("X-Missing")).isEmpty();
        assertThat(r.headerCount()).isEqualTo(3);
        assertThat(r.headerName(1)).isEqualTo("set-cookie");
        assertThat(r.headerValue(2)).isEqualTo("chunked");
        assertThat(r.bodyText()).isEqualTo("caf\u00e9 !");
        assertThat(r.bodyBytes()).hasSize(7);
        assertThat(r.body().isReadOnly()).isTrue();
        assertThat(r.trailer("x-checksum")).isEqualTo("abc");
        assertThat(r.trailers("X-Checksum")).containsExactly("abc");
        assertThat(r.trailerCount()).isEqualTo(1);
        assertThat(r.trailerName(0)).isEqualTo("X-Checksum");
        assertThatThrownBy(() -> r.headerName(3)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void theConnectTimeoutFiresAtItsDeadlineAndNotBefore() {
        ClientConnection c = connection(SETTINGS);
        CompletableFuture<ClientResponse> a = c.send(ClientRequest.get("/a"));
        CompletableFuture<ClientResponse> b = c.send(ClientRequest.get("/b"));
        assertThat(c.nanosToTick(START)).isEqualTo(Duration.ofSeconds(2).toNanos());
        now = START + Duration.ofSeconds(2).toNanos() - 1;
        assertThat(c.tick(now)).isEqualTo(Next.WAIT);
        assertThat(a).isNotDone();
        assertThat(c.nanosToTick(now)).isEqualTo(1);
        now++;
        assertThat(c.tick(now)).isEqualTo(Next.CLOSE);
        ClientException e = failure(a);
        assertThat(e.reason()).isEqualTo(Reason.CONNECT_TIMEOUT);
        assertThat(e.getMessage()).isEqualTo("GET /a to example.test:8080: not connected within 2000 ms (connect timeout)");
        assertThat(reason(b)).as("every request waiting on the connection").isEqualTo(Reason.CONNECT_TIMEOUT);
        assertThat(c.connected()).as("a connect completing too late changes nothing").isEqualTo(Next.CLOSE);
    }

    @Test
    void theResponseTimeoutFiresAtItsDeadlineAndFailsTheRest() {
        ClientConnection c = open(SETTINGS.maxPipelined(2));
        CompletableFuture<ClientResponse> first = c.send(ClientRequest.get("/slow"));
        now += 1_000;
        CompletableFuture<ClientResponse> second = c.send(ClientRequest.get("/second"));
        CompletableFuture<ClientResponse> third = c.send(ClientRequest.get("/third"));
        drain(c);
        long deadline = START + Duration.ofSeconds(5).toNanos();
        assertThat(c.nanosToTick(START)).isEqualTo(deadline - START);
        feed(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123");
        assertThat(c.tick(deadline - 1)).isEqualTo(Next.READ);
        assertThat(first).isNotDone();
        assertThat(c.tick(deadline)).isEqualTo(Next.CLOSE);
        ClientException e = failure(first);
        assertThat(e.reason()).isEqualTo(Reason.RESPONSE_TIMEOUT);
        assertThat(e.getMessage()).isEqualTo(
                "GET /slow to example.test:8080: no complete response within 5000 ms (response timeout), after 4 body bytes");
        assertThat(e.destination()).isEqualTo(DESTINATION);
        assertThat(e.request()).isEqualTo("GET /slow");
        assertThat(e.getStackTrace()).isEmpty();
        ClientException notAnswered = failure(second);
        assertThat(notAnswered.reason()).isEqualTo(Reason.NOT_ANSWERED);
        assertThat(notAnswered.getMessage()).startsWith("GET /second to example.test:8080: sent but not answered")
                .contains("response timeout");
        assertThat(reason(third)).isEqualTo(Reason.NOT_SENT);
        assertThat(c.isClosed()).isTrue();
    }

    @Test
    void theResponseTimeoutRunsFromTheRequestNotFromTheConnection() {
        ClientConnection c = open(SETTINGS);
        now += Duration.ofSeconds(60).toNanos();
        c.tick(now - Duration.ofSeconds(41).toNanos());
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/late"));
        drain(c);
        long deadline = now + Duration.ofSeconds(5).toNanos();
        assertThat(c.tick(deadline - 1)).isEqualTo(Next.READ);
        assertThat(f).isNotDone();
        c.tick(deadline);
        assertThat(reason(f)).isEqualTo(Reason.RESPONSE_TIMEOUT);
    }

    @Test
    void aRequestsOwnResponseTimeoutReplacesTheConnections() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/own").responseTimeout(Duration.ofMillis(300)));
        drain(c);
        long deadline = START + Duration.ofMillis(300).toNanos();
        assertThat(c.nanosToTick(START)).isEqualTo(deadline - START);
        assertThat(c.tick(deadline - 1)).isEqualTo(Next.READ);
        assertThat(c.tick(deadline)).isEqualTo(Next.CLOSE);
        assertThat(failure(f).getMessage()).contains("within 300 ms");
    }

    @Test
    void theIdleTimeoutClosesAnIdleConnectionAndRestartsAfterEachResponse() {
        ClientConnection c = open(SETTINGS);
        long idle = Duration.ofSeconds(20).toNanos();
        assertThat(c.nanosToTick(START)).isEqualTo(idle);
        now = START + idle / 2;
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/x"));
        drain(c);
        feed(c, OK_5 + "xxxxx");
        done(f);
        long idleSince = now;
        assertThat(c.tick(START + idle)).as("the response restarted the idle time").isEqualTo(Next.READ);
        assertThat(c.tick(idleSince + idle - 1)).isEqualTo(Next.READ);
        assertThat(c.isClosed()).isFalse();
        assertThat(c.tick(idleSince + idle)).isEqualTo(Next.CLOSE);
        assertThat(c.isClosed()).isTrue();
        assertThat(reason(c.send(ClientRequest.get("/y")))).isEqualTo(Reason.NOT_SENT);
    }

    @Test
    void noTimeoutWhenTheyAreZero() {
        ClientConnection c = connection(SETTINGS.connectTimeout(Duration.ZERO).idleTimeout(Duration.ZERO)
                .responseTimeout(Duration.ZERO));
        assertThat(c.nanosToTick(START)).isEqualTo(Long.MAX_VALUE);
        assertThat(c.tick(START + Duration.ofDays(1).toNanos())).isEqualTo(Next.WAIT);
        c.connected();
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/x"));
        drain(c);
        assertThat(c.tick(START + Duration.ofDays(2).toNanos())).isEqualTo(Next.READ);
        assertThat(f).isNotDone();
    }

    @Test
    void closedInTheMiddleOfTheBody() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/big"));
        drain(c);
        feed(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
        assertThat(c.endOfInput()).isEqualTo(Next.CLOSE);
        ClientException e = failure(f);
        assertThat(e.reason()).isEqualTo(Reason.CONNECTION_CLOSED);
        assertThat(e.getMessage()).isEqualTo("GET /big to example.test:8080: the server closed the connection after 3 of 10 body bytes");
    }

    @Test
    void closedInTheMiddleOfTheHeaders() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/h"));
        drain(c);
        feed(c, "HTTP/1.1 200 OK\r\nContent-Le");
        assertThat(c.endOfInput()).isEqualTo(Next.CLOSE);
        assertThat(reason(f)).isEqualTo(Reason.CONNECTION_CLOSED);
        assertThat(failure(f).getMessage()).contains("in the middle of the response's head");
    }

    @Test
    void closedBeforeAnyResponseByte() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> sent = c.send(ClientRequest.get("/sent"));
        drain(c);
        assertThat(c.endOfInput()).isEqualTo(Next.CLOSE);
        assertThat(reason(sent)).isEqualTo(Reason.CONNECTION_CLOSED);
        assertThat(failure(sent).getMessage()).endsWith("the server closed the connection before responding");

        ClientConnection d = open(SETTINGS);
        CompletableFuture<ClientResponse> unsent = d.send(ClientRequest.get("/unsent"));
        assertThat(d.endOfInput()).isEqualTo(Next.CLOSE);
        assertThat(reason(unsent)).as("not a byte of it left: safe to send again").isEqualTo(Reason.NOT_SENT);
    }

    @Test
    void aMalformedResponseFailsTheRequestInFlightAndTheOnesBehindIt() {
        ClientConnection c = open(SETTINGS.maxPipelined(2));
        CompletableFuture<ClientResponse> first = c.send(ClientRequest.get("/1"));
        CompletableFuture<ClientResponse> second = c.send(ClientRequest.get("/2"));
        CompletableFuture<ClientResponse> third = c.send(ClientRequest.get("/3"));
        drain(c);
        assertThat(feed(c, "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello")).isEqualTo(Next.CLOSE);
        ClientException e = failure(first);
        assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RESPONSE);
        assertThat(e.getMessage()).isEqualTo(
                "GET /1 to example.test:8080: malformed response: whitespace between a field name and its colon");
        assertThat(reason(second)).isEqualTo(Reason.NOT_ANSWERED);
        assertThat(reason(third)).isEqualTo(Reason.NOT_SENT);
        assertThat(c.isClosed()).isTrue();
        assertThat(c.outbound().hasRemaining()).isFalse();
    }

    @Test
    void aResponseThatClosesEndsTheConnectionAndFailsThePipelinedOnes() {
        ClientConnection c = open(SETTINGS.maxPipelined(2));
        CompletableFuture<ClientResponse> first = c.send(ClientRequest.get("/1"));
        CompletableFuture<ClientResponse> second = c.send(ClientRequest.get("/2"));
        drain(c);
        assertThat(feed(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nfirst")).isEqualTo(Next.CLOSE);
        assertThat(done(first).bodyText()).isEqualTo("first");
        ClientException e = failure(second);
        assertThat(e.reason()).isEqualTo(Reason.NOT_ANSWERED);
        assertThat(e.getMessage()).contains("the response to GET /1 did not let the connection be reused");
        assertThat(c.isClosed()).isTrue();
    }

    @Test
    void aRequestAskingForACloseIsTheLastOne() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> last = c.send(ClientRequest.get("/bye").closeConnection());
        assertThat(c.isReusable()).isFalse();
        assertThat(c.isIdle()).isFalse();
        CompletableFuture<ClientResponse> refused = c.send(ClientRequest.get("/more"));
        assertThat(reason(refused)).isEqualTo(Reason.NOT_SENT);
        assertThat(failure(refused).getMessage()).contains("it is closing");
        assertThat(drain(c)).isEqualTo("GET /bye HTTP/1.1\r\nHost: example.test:8080\r\nConnection: close\r\n\r\n");
        // the server keeps it open (it may: the client closes once answered)
        assertThat(feed(c, OK_5 + "later")).isEqualTo(Next.CLOSE);
        assertThat(done(last).bodyText()).isEqualTo("later");
    }

    @Test
    void bodiesLargerThanTheLimitFail() {
        ClientSettings small = SETTINGS.maxBodySize(8);
        ClientConnection announced = open(small);
        CompletableFuture<ClientResponse> a = announced.send(ClientRequest.get("/a"));
        drain(announced);
        assertThat(feed(announced, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n")).isEqualTo(Next.CLOSE);
        assertThat(reason(a)).isEqualTo(Reason.BODY_TOO_LARGE);
        assertThat(failure(a).getMessage()).contains("announces a body of 9 bytes, more than the limit of 8");

        ClientConnection chunked = open(small);
        CompletableFuture<ClientResponse> b = chunked.send(ClientRequest.get("/b"));
        drain(chunked);
        assertThat(feed(chunked, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n")).isEqualTo(Next.READ);
        assertThat(feed(chunked, "4\r\n6789\r\n0\r\n\r\n")).isEqualTo(Next.CLOSE);
        assertThat(reason(b)).isEqualTo(Reason.BODY_TOO_LARGE);

        ClientConnection exact = open(small);
        CompletableFuture<ClientResponse> c = exact.send(ClientRequest.get("/c"));
        drain(exact);
        feed(exact, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n3\r\n678\r\n0\r\n\r\n");
        assertThat(done(c).bodyText()).as("exactly at the limit").isEqualTo("12345678");
    }

    @Test
    void aFailedConnectFailsEveryRequestWithItsCause() {
        ClientConnection c = connection(SETTINGS);
        CompletableFuture<ClientResponse> a = c.send(ClientRequest.get("/a"));
        CompletableFuture<ClientResponse> b = c.send(ClientRequest.get("/b"));
        IOException refused = new ConnectException("Connection refused");
        assertThat(c.connectFailed(refused)).isEqualTo(Next.CLOSE);
        ClientException e = failure(a);
        assertThat(e.reason()).isEqualTo(Reason.CONNECT_FAILED);
        assertThat(e.getMessage()).isEqualTo("GET /a to example.test:8080: could not connect: Connection refused");
        assertThat(e.getCause()).isSameAs(refused);
        assertThat(reason(b)).isEqualTo(Reason.CONNECT_FAILED);
        assertThat(c.isClosed()).isTrue();
        c.closed();
        assertThat(c.next()).isEqualTo(Next.CLOSE);
    }

    @Test
    void theStrategyClosingTheSocketFailsWhatIsPending() {
        ClientConnection c = open(SETTINGS.maxPipelined(2));
        CompletableFuture<ClientResponse> first = c.send(ClientRequest.get("/1"));
        CompletableFuture<ClientResponse> second = c.send(ClientRequest.get("/2"));
        drain(c);
        c.closed();
        assertThat(reason(first)).isEqualTo(Reason.CONNECTION_CLOSED);
        assertThat(reason(second)).isEqualTo(Reason.NOT_ANSWERED);
        c.closed();
        assertThat(c.next()).isEqualTo(Next.CLOSE);

        ClientConnection connecting = connection(SETTINGS);
        CompletableFuture<ClientResponse> waiting = connecting.send(ClientRequest.get("/w"));
        connecting.closed();
        assertThat(reason(waiting)).isEqualTo(Reason.NOT_SENT);
    }

    @Test
    void bytesWithNoRequestAwaitingCloseTheConnection() {
        ClientConnection c = open(SETTINGS);
        assertThat(feed(c, "HTTP/1.1 200 OK\r\n")).isEqualTo(Next.CLOSE);
        assertThat(c.isClosed()).isTrue();
        assertThat(feed(c, "more")).as("bytes after the close are dropped").isEqualTo(Next.CLOSE);
    }

    @Test
    void anIdleConnectionClosedByTheServerIsOverWithoutFailures() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/x"));
        drain(c);
        feed(c, OK_5 + "xxxxx");
        done(f);
        assertThat(c.endOfInput()).isEqualTo(Next.CLOSE);
        assertThat(c.isClosed()).isTrue();
    }

    @Test
    void closeAfterResponseAndDrainFinishWhatIsPendingThenClose() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/x"));
        drain(c);
        c.closeAfterResponse();
        assertThat(c.next()).isEqualTo(Next.READ);
        assertThat(reason(c.send(ClientRequest.get("/y")))).isEqualTo(Reason.NOT_SENT);
        assertThat(feed(c, OK_5 + "xxxxx")).isEqualTo(Next.CLOSE);
        done(f);

        ClientConnection idle = open(SETTINGS);
        idle.drain();
        assertThat(idle.next()).as("drain applies at the next tick").isEqualTo(Next.READ);
        assertThat(idle.tick(now)).isEqualTo(Next.CLOSE);
    }

    /** A callback completing one request may send the next on the same connection: it is written at once. */
    @Test
    void aCompletionMaySendTheNextRequest() {
        ClientConnection c = open(SETTINGS);
        CompletableFuture<ClientResponse> second = new CompletableFuture<>();
        c.send(ClientRequest.get("/first")).thenAccept(r -> c.send(ClientRequest.get("/second")).whenComplete((s, e) -> {
            if (e != null) {
                second.completeExceptionally(e);
            } else {
                second.complete(s);
            }
        }));
        drain(c);
        assertThat(feed(c, OK_5 + "first")).as("the callback's request waits to be written").isEqualTo(Next.READ_WRITE);
        assertThat(drain(c)).startsWith("GET /second ");
        feed(c, OK_5 + "again");
        assertThat(done(second).bodyText()).isEqualTo("again");
    }

    @Test
    void requestsAreEncodedWithTheirFramingFields() {
        ClientConnection c = open(SETTINGS.maxPipelined(8));
        c.send(new ClientRequest("POST", "/empty"));
        c.send(new ClientRequest("DELETE", "/d?x=1").header("Host", "other.test").header("X-Trace", "a\tb"));
        assertThat(drain(c)).isEqualTo("POST /empty HTTP/1.1\r\nHost: example.test:8080\r\nContent-Length: 0\r\n\r\n");
        feed(c, "HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(drain(c)).isEqualTo("DELETE /d?x=1 HTTP/1.1\r\nHost: other.test\r\nX-Trace: a\tb\r\n\r\n");
    }

    @Test
    void theDestinationIsChecked() {
        assertThatThrownBy(() -> new ClientConnection("host/path", SETTINGS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host:port");
        assertThatThrownBy(() -> new ClientConnection("", SETTINGS)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ClientConnection("a b:80", SETTINGS)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void receivingBeforeConnectedIsAStrategyError() {
        ClientConnection c = connection(SETTINGS);
        assertThatThrownBy(() -> feed(c, "HTTP/1.1 200 OK\r\n")).isInstanceOf(IllegalStateException.class);
    }
}
