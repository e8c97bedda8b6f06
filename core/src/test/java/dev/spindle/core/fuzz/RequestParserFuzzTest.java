// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.http1.FuzzAccess;
import dev.spindle.core.http1.FuzzAccess.Outcome;
import dev.spindle.core.http1.FuzzAccess.Parsed;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import static dev.spindle.core.fuzz.Findings.require;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coverage-guided fuzz tests of the request parser (issue #7). In a normal build they replay the
 * committed inputs under {@code src/test/resources/dev/spindle/core/fuzz/RequestParserFuzzTestInputs};
 * {@code scripts/fuzz.sh} fuzzes them for real.
 */
class RequestParserFuzzTest {
    /** Every status the parser may answer with (its Javadoc table). */
    static final Set<Integer> PARSE_ERRORS = Set.of(400, 413, 414, 417, 431, 501, 505);
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Pattern TARGET = Pattern.compile("[\\x21-\\x22\\x24-\\x7E]+");
    /** RFC 9110 field-value after the parser trimmed it: no CTL but HTAB inside, no whitespace at either end. */
    private static final Pattern FIELD_VALUE =
            Pattern.compile("([^\\x00-\\x20\\x7F]([^\\x00-\\x08\\x0A-\\x1F\\x7F]*[^\\x00-\\x20\\x7F])?)?");
    static final ServerConfig DEFAULTS = ServerConfig.defaults();
    /** Limits small enough that short fuzz inputs reach every one of them. */
    static final ServerConfig SMALL_LIMITS = DEFAULTS.maxRequestLineLength(96).maxHeaderSize(384).maxHeaderCount(6)
            .maxBodySize(48).readBufferSize(256);

    /**
     * Any bytes, under default and small limits, give complete requests that obey the grammar and
     * the limits, then at most one parse error with one of the parser's statuses: no other
     * exception, no hang.
     */
    @FuzzTest
    void anyBytesParseOrFailWithAnErrorStatus(byte[] stream) {
        for (ServerConfig config : List.of(DEFAULTS, SMALL_LIMITS)) {
            Outcome outcome = FuzzAccess.parse(config, List.of(stream));
            require(!outcome.failed() || PARSE_ERRORS.contains(outcome.errorStatus()), "a parse error has a parser status", outcome);
            for (Parsed p : outcome.requests()) {
                checkWellFormed(p, config);
            }
        }
    }

    /**
     * Input: the stream, then {@link Controls} (flag bit 0: small limits; bytes 1-8: cut points).
     * Fed whole, cut at the fuzzer's points, and one byte at a time, the stream gives the same
     * requests and the same error.
     */
    @FuzzTest
    void splittingDoesNotChangeWhatIsParsed(FuzzedDataProvider data) {
        Controls controls = Controls.take(data);
        byte[] stream = data.consumeRemainingAsBytes();
        ServerConfig config = controls.flag(0) ? SMALL_LIMITS : DEFAULTS;

        Outcome whole = FuzzAccess.parse(config, List.of(stream));
        assertThat(FuzzAccess.parse(config, controls.pieces(stream))).as("cut at the fuzzer's points").isEqualTo(whole);
        assertThat(FuzzAccess.parse(config, Controls.bytewise(stream))).as("one byte at a time").isEqualTo(whole);
    }

    static void checkWellFormed(Parsed p, ServerConfig config) {
        require(TOKEN.matcher(p.method()).matches(), "method is a token", p);
        require(TARGET.matcher(p.target()).matches(), "target is visible ASCII without '#'", p);
        require(p.version().equals("HTTP/1.0") || p.version().equals("HTTP/1.1"), "version", p);
        require(p.method().length() + p.target().length() + p.version().length() + 2 <= config.maxRequestLineLength(),
                "request line within the limit", p);
        require(p.headers().size() <= config.maxHeaderCount(), "header count within the limit", p);
        int hosts = 0;
        for (String h : p.headers()) {
            int colon = h.indexOf(": ");
            require(TOKEN.matcher(h.substring(0, colon)).matches(), "field name is a token", h);
            require(FIELD_VALUE.matcher(h.substring(colon + 2)).matches(), "field value without CTLs or surrounding whitespace", h);
            if (h.regionMatches(true, 0, "Host:", 0, 5)) {
                hosts++;
            }
        }
        require(p.version().equals("HTTP/1.1") ? hosts == 1 : hosts <= 1, "one Host on HTTP/1.1, at most one on HTTP/1.0", p);
        require(p.body().length() <= config.maxBodySize(), "body within the limit", p);
    }
}
