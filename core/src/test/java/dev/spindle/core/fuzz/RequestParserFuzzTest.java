package dev.spindle.core.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.spindle.core.FuzzAccess;
import dev.spindle.core.FuzzAccess.Outcome;
import dev.spindle.core.FuzzAccess.Parsed;
import dev.spindle.core.ServerConfig;
import java.util.List;
import java.util.Set;

/**
 * Coverage-guided fuzz tests of the request parser (issue #7). In a normal build they replay the
 * committed inputs under {@code src/test/resources/dev/spindle/core/fuzz/RequestParserFuzzTestInputs};
 * {@code scripts/fuzz.sh} fuzzes them for real.
 */
class RequestParserFuzzTest {
    /** Every status the parser may answer with (its Javadoc table). */
    static final Set<Integer> PARSE_ERRORS = Set.of(400, 413, 414, 417, 431, 501, 505);
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
            if (outcome.failed()) {
                assertThat(PARSE_ERRORS).as("status of the parse error").contains(outcome.errorStatus());
            }
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
        assertThat(p.method()).as("method token").matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
        assertThat(p.target()).as("request target").matches("[\\x21-\\x7E]+").doesNotContain("#");
        assertThat(p.version()).isIn("HTTP/1.0", "HTTP/1.1");
        assertThat(p.method().length() + p.target().length() + p.version().length() + 2)
                .as("request line length").isLessThanOrEqualTo(config.maxRequestLineLength());
        assertThat(p.headers()).as("header count").hasSizeLessThanOrEqualTo(config.maxHeaderCount());
        int hosts = 0;
        for (String h : p.headers()) {
            int colon = h.indexOf(": ");
            assertThat(h.substring(0, colon)).as("field name").matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
            String value = h.substring(colon + 2);
            assertThat(value).as("field value of %s", h).matches("([^\\x00-\\x20\\x7F]([^\\x00-\\x08\\x0A-\\x1F\\x7F]*[^\\x00-\\x20\\x7F])?)?");
            if (h.regionMatches(true, 0, "Host:", 0, 5)) {
                hosts++;
            }
        }
        if (p.version().equals("HTTP/1.1")) {
            assertThat(hosts).as("an HTTP/1.1 request has exactly one Host").isEqualTo(1);
        } else {
            assertThat(hosts).as("at most one Host").isLessThanOrEqualTo(1);
        }
        assertThat((long) p.body().length()).as("body length").isLessThanOrEqualTo(config.maxBodySize());
    }
}
