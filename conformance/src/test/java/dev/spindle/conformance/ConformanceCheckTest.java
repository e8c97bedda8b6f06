// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ConformanceCheck} against a deliberately wrong server: one that answers every read with the
 * same {@code 200 Hello, World!} without parsing anything. The check must fail it, on the cases
 * that show it, and say why. (A real server passing is tested where a server lives: the strategy
 * modules.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConformanceCheckTest {
    private Path dir;
    private WrongServer wrong;
    private int exitStatus;
    private List<String> printed;
    private Map<String, String[]> cases;

    @BeforeAll
    void checkTheWrongServer(@TempDir Path tempDir) throws IOException {
        dir = tempDir;
        wrong = WrongServer.start();
        Path tsv = dir.resolve("conformance/wrong.tsv");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exitStatus = ConformanceCheck.run(List.of("127.0.0.1:" + wrong.port(), tsv.toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        printed = out.toString(StandardCharsets.UTF_8).lines().toList();
        List<String> lines = Files.readAllLines(tsv);
        assertThat(lines.getFirst()).isEqualTo("case\tstatus\tmessage\trule");
        cases = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] fields = line.split("\t", -1);
            assertThat(fields).as(line).hasSize(4);
            assertThat(cases.put(fields[0], fields)).as("case named once: %s", fields[0]).isNull();
        }
    }

    @AfterAll
    void stopTheWrongServer() throws IOException {
        wrong.close();
    }

    @Test
    void theWrongServerFailsAndTheScoreCountsPassedAndFailedCases() {
        assertThat(exitStatus).isEqualTo(1);
        long passed = count("passed");
        long failed = count("failed");
        assertThat(failed).isGreaterThan(passed);
        assertThat(printed.getLast()).isEqualTo(passed + "/" + (passed + failed));
        assertThat(cases.values()).allSatisfy(c -> assertThat(c[1]).isIn("passed", "failed", "skipped"));
    }

    /** The kinds of case a server that parses nothing must fail, each with what its message names. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            badInputGetsItsStatusAndACloseAndTheServerGoesOn[request line too long -> 414] | 414
            badInputGetsItsStatusAndACloseAndTheServerGoesOn[missing Host -> 400]           | 400
            badInputGetsItsStatusAndACloseAndTheServerGoesOn[unsupported version -> 505]    | 505
            stricterFramingIs400AndACloseHoweverItArrives[Content-Length twice with equal values, WHOLE] | 400
            benchmarkAppRoutes[GET /json -> 200]                                             | Hello, World!
            benchmarkAppRoutes[GET /nowhere -> 404]                                          | 404
            wrongMethodIs405WithAllow                                                        | 405
            keepAliveServesManyRequestsOnOneConnection                                       | {"id":"0"}
            pipelinedRequestsAreAnsweredInOrder                                              | {"id":"0"}
            chunkedRequestBodyIsDecoded                                                      | Hello, chunks
            expectContinueGetsAnInterimResponse                                              | 100
            """)
    void theWrongServerFails(String name, String messagePart) {
        assertThat(cases).containsKey(name);
        assertThat(cases.get(name)[1]).as(name).isEqualTo("failed");
        assertThat(cases.get(name)[2]).as(name).contains(messagePart);
        assertThat(printed).anySatisfy(line -> assertThat(line).startsWith("FAILED " + name + ": "));
    }

    @Test
    void everyBadInputCaseFails() {
        List<String[]> badInput = cases.values().stream().filter(c -> c[0].startsWith("badInputGetsItsStatus")).toList();
        assertThat(badInput).hasSizeGreaterThan(20).allSatisfy(c -> assertThat(c[1]).as(c[0]).isEqualTo("failed"));
    }

    /** Each case carries the rule its method's tag gives it, skipped ones too; untagged is the contract. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            chunkedRequestBodyIsDecoded                                           | rfc9112
            pipelinedRequestsAreAnsweredInOrder                                   | rfc9112
            aLargePipelinedSeriesArrivesIntact                                    | rfc9112
            connectionCloseIsHonoured                                             | contract
            http10ClosesUnlessKeepAliveIsAsked                                    | contract
            badInputGetsItsStatusAndACloseAndTheServerGoesOn[missing Host -> 400] | contract
            badInputGetsItsStatusAndACloseAndTheServerGoesOn[differing Content-Length -> 400] | rfc9112
            badInputGetsItsStatusAndACloseAndTheServerGoesOn[negative Content-Length -> 400]  | rfc9112
            invalidContentLengthAnswersSayConnectionClose                         | contract
            benchmarkAppRoutes[GET /json -> 200]                                  | contract
            idleKeepAliveConnectionIsClosedAfterTheIdleTimeout                    | contract
            """)
    void everyCaseSaysItsRule(String name, String rule) {
        assertThat(cases).containsKey(name);
        assertThat(cases.get(name)[3]).as(name).isEqualTo(rule);
        assertThat(cases.values()).allSatisfy(c -> assertThat(c[3]).as(c[0]).isIn("rfc9112", "contract"));
    }

    /** Skips are neither passes nor failures, and each says why. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            filtersAndExceptionMappersApplyToEveryKindOfExchange | lacks CUSTOM_ROUTES
            idleKeepAliveConnectionIsClosedAfterTheIdleTimeout   | lacks TIMEOUTS
            connectionsBeyondTheLimitGet503                      | lacks CONNECTION_LIMIT
            aServerThatCannotBindFailsToStartAndIsOver           | starts a server of its own
            knownDeviationsNameRealCases                         | the suite's own declarations
            alpnNegotiatesHttp11                                 | TLS only
            s3_5_prefaceIsAnsweredWithSettings                   | does not speak HTTP/2
            """)
    void casesTheTargetCannotBeJudgedOnAreSkippedWithTheReason(String name, String reason) {
        assertThat(cases).containsKey(name);
        assertThat(cases.get(name)[1]).as(name).isEqualTo("skipped");
        assertThat(cases.get(name)[2]).as(name).contains(reason);
    }

    @Test
    void casesNotStartedWithinTheBudgetAreSkippedSayingSo() throws Exception {
        List<ConformanceCheck.CaseResult> results = ConformanceCheck.check("127.0.0.1:" + wrong.port(), false, Duration.ZERO);
        assertThat(results).isNotEmpty().allSatisfy(r -> assertThat(r.status()).isEqualTo(ConformanceCheck.Status.SKIPPED));
        assertThat(results).anySatisfy(r -> assertThat(r.message()).contains("time budget"));
    }

    @Test
    void anUnreachableTargetCannotBeChecked() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path tsv = dir.resolve("unreachable.tsv");
        int status = ConformanceCheck.run(List.of("127.0.0.1:" + closed, tsv.toString()), System.out,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot connect to 127.0.0.1:" + closed);
        assertThat(tsv).doesNotExist();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            no arguments             |
            no output file           | 127.0.0.1:80
            no port                  | 127.0.0.1 out.tsv
            port not a number        | 127.0.0.1:http out.tsv
            an unknown option        | --fast 127.0.0.1:80 out.tsv
            """)
    void badArgumentsCannotRun(String what, String args) {
        List<String> argv = args == null ? List.of() : List.of(args.split(" "));
        int status = ConformanceCheck.run(argv, System.out, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(status).as(what).isEqualTo(2);
    }

    @Test
    void messagesAreOneLine() {
        assertThat(ConformanceCheck.oneLine("[x] \nexpected: 400\n but was:\t200\u0000")).isEqualTo("[x] expected: 400 but was: 200?");
        assertThat(ConformanceCheck.oneLine("y".repeat(1000))).hasSize(300).endsWith("…");
    }

    private long count(String status) {
        return cases.values().stream().filter(c -> c[1].equals(status)).count();
    }

    /**
     * Answers every read with the same bytes and parses nothing, as the seed project's fastest
     * server did: it wins a plaintext benchmark and is wrong about everything else. A connection
     * idle for a second is closed, so cases waiting for a close do not wait for their read timeout.
     */
    private static final class WrongServer implements AutoCloseable {
        private static final byte[] ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n"
                + "Hello, World!").getBytes(StandardCharsets.US_ASCII);
        private final ServerSocket socket;

        private WrongServer(ServerSocket socket) {
            this.socket = socket;
        }

        static WrongServer start() throws IOException {
            WrongServer server = new WrongServer(new ServerSocket(0, 1000, InetAddress.getLoopbackAddress()));
            Thread.ofPlatform().daemon().name("wrong-server").start(server::accept);
            return server;
        }

        int port() {
            return socket.getLocalPort();
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket connection = socket.accept();
                    Thread.ofVirtual().start(() -> answerEveryRead(connection));
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private static void answerEveryRead(Socket connection) {
            try (connection; InputStream in = connection.getInputStream()) {
                connection.setSoTimeout(1000);
                byte[] buffer = new byte[64 * 1024];
                while (in.read(buffer) >= 0) {
                    connection.getOutputStream().write(ANSWER);
                }
            } catch (IOException e) {
                // idle for a second, or reset by the client: closed either way
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
