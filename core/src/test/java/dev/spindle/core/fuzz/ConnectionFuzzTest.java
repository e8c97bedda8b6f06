// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.fuzz.Answers.Answer;
import dev.spindle.core.fuzz.Answers.Output;
import dev.spindle.core.http1.FuzzAccess;
import dev.spindle.core.http1.FuzzAccess.Outcome;
import dev.spindle.core.http1.FuzzAccess.Parsed;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import static dev.spindle.core.fuzz.Findings.require;

/**
 * Coverage-guided fuzz test of the sans-I/O {@link dev.spindle.core.spi.Connection} (issue #7): any
 * bytes, however they arrive and however slowly the output is written, get well-formed responses
 * that answer exactly what the parser alone makes of the same bytes, in order, and at most one
 * clean error that closes the connection.
 */
class ConnectionFuzzTest {
    private static final Router ROUTES = FuzzRoutes.routes();
    /** Statuses the fuzz routes answer: never 500, which would mean a handler or the router threw. */
    private static final Set<Integer> ROUTE_STATUSES = Set.of(200, 400, 404, 405);

    /**
     * Input: the stream, then {@link Controls}. Flags: bit 0 small limits, bit 1 keep-alive off,
     * bit 2 blocking routes offloaded to an executor, bit 3 a high-water mark of byte 11 + 1
     * (back-pressure), bit 4 {@code closeAfterResponse()} before the piece numbered by byte 10,
     * bit 5 a lagging driver (see {@link ConnectionDriver}). Bytes 1-8 cut the stream into pieces;
     * byte 9 is the write step (0: all pending at once).
     */
    @FuzzTest
    void answersEveryRequestInOrderOrClosesWithAnError(FuzzedDataProvider data) {
        Controls controls = Controls.take(data);
        byte[] stream = data.consumeRemainingAsBytes();
        ServerConfig config = controls.flag(0) ? RequestParserFuzzTest.SMALL_LIMITS : RequestParserFuzzTest.DEFAULTS;
        if (controls.flag(1)) {
            config = config.keepAlive(false);
        }
        if (controls.flag(3)) {
            config = config.writeHighWaterMark(controls.unsigned(11) + 1);
        }
        boolean closeEarly = controls.flag(4);
        List<byte[]> pieces = controls.pieces(stream);
        int closeBefore = controls.unsigned(10) % (pieces.size() + 1);

        ConnectionDriver driver = new ConnectionDriver(ROUTES, config, controls.flag(2), controls.unsigned(9), controls.flag(5));
        for (int i = 0; i < pieces.size(); i++) {
            if (closeEarly && i == closeBefore) {
                driver.closeAfterResponse();
            }
            if (!driver.receive(pieces.get(i))) {
                break;
            }
        }
        if (closeEarly && closeBefore == pieces.size()) {
            driver.closeAfterResponse();
        }
        byte[] written = driver.finish();

        Outcome parsed = FuzzAccess.parse(config, List.of(stream));
        Output output = Answers.read(written, i -> answersHead(parsed, i));
        checkAnswers(output, parsed, config, closeEarly);
        if (!closeEarly) {
            ConnectionDriver whole = new ConnectionDriver(ROUTES, config, false, 0, false);
            whole.receive(stream);
            Output reference = Answers.read(whole.finish(), i -> answersHead(parsed, i));
            require(withoutDates(output).equals(withoutDates(reference)),
                    "answers differ between the stream fed in pieces and fed whole", output, reference);
        }
    }

    static boolean answersHead(Outcome parsed, int response) {
        List<Parsed> requests = parsed.requests();
        return response < requests.size() ? requests.get(response).isHead() : parsed.errorAnswersHead();
    }

    /**
     * Response i answers request i as the parser saw it; after the requests comes the parse
     * error, if any. A connection that stops answering early does so only after a response that
     * closed it.
     */
    static void checkAnswers(Output output, Outcome parsed, ServerConfig config, boolean closeEarly) {
        List<Parsed> requests = parsed.requests();
        List<Answer> responses = output.responses();
        int owed = requests.size() + (parsed.failed() ? 1 : 0);
        require(responses.size() <= owed, "more responses than requests", responses, parsed);
        for (int i = 0; i < responses.size(); i++) {
            Answer r = responses.get(i);
            require(!r.closes() || i == responses.size() - 1, "a response after one that closed the connection", responses);
            if (i < requests.size()) {
                checkAnswer(r, requests.get(i), config, closeEarly);
            } else {
                require(r.status() == parsed.errorStatus() && r.closes(),
                        "the parse error must be answered with its status and close", r, parsed);
                require(r.continuesBefore() <= 1, "100 Continue more than once for a request", r);
            }
        }
        if (responses.size() < owed) {
            require(!responses.isEmpty() && responses.getLast().closes(),
                    "requests left unanswered without a response that closed the connection", responses, parsed);
        }
        if (output.trailingContinues() > 0) {
            require(output.trailingContinues() == 1 && responses.size() == requests.size() && !parsed.failed()
                            && parsed.partialLeft(),
                    "a trailing 100 Continue belongs to an unfinished request", output, parsed);
        }
    }

    static void checkAnswer(Answer r, Parsed request, ServerConfig config, boolean closeEarly) {
        require(ROUTE_STATUSES.contains(r.status()), "unexpected status (500: a handler or the router threw)", r, request);
        require(r.continuesBefore() == 0 || r.continuesBefore() == 1 && request.expectContinue()
                && request.version().equals("HTTP/1.1"), "100 Continue only once, and only when asked for", r, request);
        boolean keepAlive = config.keepAlive() && request.keepAlive();
        if (!keepAlive) {
            require(r.closes(), "a request that does not keep the connection must be answered with close", r, request);
        } else if (!closeEarly) {
            require(!r.closes(), "a keep-alive request must not be answered with close", r, request);
        }
        if (!r.closes()) {
            String expected = request.version().equals("HTTP/1.0") ? "keep-alive" : null;
            require(Objects.equals(r.header("Connection"), expected), "Connection header of a kept connection", r, request);
        }
        if (r.status() == 405) {
            require(r.header("Allow") != null, "405 without Allow", r, request);
        }
        if (r.header(FuzzRoutes.DESCRIBED) != null) {
            byte[] described = FuzzRoutes.describe(request);
            if (request.isHead()) {
                require(r.body().length == 0 && r.header("Content-Length").equals(String.valueOf(described.length)),
                        "HEAD: no body, the GET answer's length", r, request);
            } else {
                require(Arrays.equals(r.body(), described), "the handler saw another request than the parser", r, request);
            }
        }
    }

    private static List<String> withoutDates(Output output) {
        return output.responses().stream().map(Answer::withoutDate).toList();
    }
}
