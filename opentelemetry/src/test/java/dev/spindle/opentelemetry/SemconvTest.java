// SPDX-License-Identifier: Apache-2.0
package dev.spindle.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.HttpException;
import dev.spindle.core.Method;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The conventions' rules without a server: methods, protocol versions, error.type, url.query's redaction. */
class SemconvTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "GET, GET, GET", "HEAD, HEAD, HEAD", "POST, POST, POST", "PUT, PUT, PUT", "DELETE, DELETE, DELETE",
            "PATCH, PATCH, PATCH", "OPTIONS, OPTIONS, OPTIONS", "TRACE, TRACE, TRACE", "CONNECT, CONNECT, CONNECT",
            "PROPFIND, _OTHER, HTTP", "get, _OTHER, HTTP", "'', _OTHER, HTTP",
    })
    void methodsOutsideTheConventionsListAreOther(String token, String value, String spanName) {
        int index = Semconv.methodIndex(token);
        assertThat(Semconv.METHOD_VALUES[index]).isEqualTo(value);
        assertThat(Semconv.SPAN_NAME_METHODS[index]).isEqualTo(spanName);
        Method parsed = value.equals("_OTHER") ? Method.OTHER : Method.valueOf(token);
        assertThat(Semconv.methodIndex(parsed)).as("the enum and the token agree").isEqualTo(index);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"HTTP/1.1, 1.1", "HTTP/1.0, 1.0", "HTTP/2, 2"})
    void protocolVersions(String protocol, String version) {
        assertThat(Semconv.protocolVersion(protocol)).isEqualTo(version);
    }

    @ParameterizedTest(name = "{0} {1} {2} -> {3}")
    @CsvSource(nullValues = "null", value = {
            "COMPLETE, 200, null, null",
            "COMPLETE, 302, null, null",
            "COMPLETE, 404, http, null",
            "COMPLETE, 499, null, null",
            "COMPLETE, 500, state, 500",
            "COMPLETE, 503, http, 503",
            "COMPLETE, 599, null, 599",
            "COMPLETE, 600, null, 600",
            "ABORTED, 200, null, _OTHER",
            "ABORTED, 0, null, _OTHER",
            "ABORTED, 0, state, java.lang.IllegalStateException",
            "REFUSED, 0, null, _OTHER",
    })
    void errorTypeIsTheStatusOfAServerErrorOrWhatCutTheExchangeShort(ExchangeEnd.Outcome outcome, int status, String failure,
            String errorType) {
        Throwable f = failure == null ? null : failure.equals("http") ? new HttpException(status, "x") : new IllegalStateException();
        assertThat(Semconv.errorType(new End(outcome, status, f))).isEqualTo(errorType);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
            "q=1 | q=1",
            "'' | ''",
            "sig=abc | sig=REDACTED",
            "a=1&Signature=xyz&b=2 | a=1&Signature=REDACTED&b=2",
            "AWSAccessKeyId=K&X-Goog-Signature=S | AWSAccessKeyId=REDACTED&X-Goog-Signature=REDACTED",
            "signature=lower&sig | signature=lower&sig",
            "a&sig=1& | a&sig=REDACTED&",
            "sigma=1&xsig=2 | sigma=1&xsig=2",
    })
    void signedUrlCredentialsAreRedactedFromTheQuery(String query, String redacted) {
        assertThat(QueryRedaction.redact(query)).isEqualTo(redacted);
    }

    @ParameterizedTest
    @CsvSource({"q=1", "a=1&b=2&c"})
    void aQueryWithoutCredentialsIsTheSameString(String query) {
        assertThat(QueryRedaction.redact(query)).isSameAs(query);
    }

    private record End(Outcome outcome, int status, Throwable failure) implements ExchangeEnd {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String target() {
            return "/";
        }

        @Override
        public String route() {
            return null;
        }

        @Override
        public String protocol() {
            return "HTTP/1.1";
        }

        @Override
        public long responseBodyBytes() {
            return 0;
        }

        @Override
        public long requestBodyBytes() {
            return 0;
        }

        @Override
        public long durationNanos() {
            return 1;
        }
    }
}
