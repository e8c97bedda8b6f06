// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.fuzz;

import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.ResponseReader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * What a fuzzed connection wrote, read by the shared {@link ResponseReader} and held to what every
 * Spindle response promises: {@code 100 Continue} the only interim response, one Date,
 * {@code Server: spindle}, a well-formed Content-Length and no Transfer-Encoding. Anything else is a
 * finding, reported as an {@link AssertionError}.
 */
final class Answers {
    private Answers() {
    }

    /** A final response and how many {@code 100 Continue} came just before it. */
    record Answer(RawResponse response, int continuesBefore) {
        int status() {
            return response.status();
        }

        byte[] body() {
            return response.body();
        }

        boolean closes() {
            return response.closes();
        }

        /** The header's value; a header sent twice is a finding. */
        String header(String name) {
            List<String> values = response.headers(name);
            if (values.size() > 1) {
                throw new AssertionError("header " + name + " twice in " + this);
            }
            return values.isEmpty() ? null : values.getFirst();
        }

        String withoutDate() {
            return response.withoutDate();
        }

        @Override
        public String toString() {
            return response + (continuesBefore > 0 ? " after " + continuesBefore + " 100 Continue" : "");
        }
    }

    /** The final responses, and the count of 100 Continue after the last of them. */
    record Output(List<Answer> responses, int trailingContinues) {
    }

    /** {@code bodiless} says, by index among the final responses, which ones answer HEAD. */
    static Output read(byte[] written, IntPredicate bodiless) {
        List<Answer> answers = new ArrayList<>();
        int continues = 0;
        for (RawResponse r : ResponseReader.readAll(written, bodiless)) {
            if (r.interim()) {
                if (r.status() != 100 || !r.headers().isEmpty()) {
                    throw new AssertionError("an interim response other than a bare 100 Continue: " + r);
                }
                continues++;
                continue;
            }
            Answer answer = new Answer(r, continues);
            if (answer.header("Date") == null) {
                throw new AssertionError("no Date in " + r);
            }
            if (!"spindle".equals(answer.header("Server"))) {
                throw new AssertionError("no Server: spindle in " + r);
            }
            if (answer.header("Transfer-Encoding") != null) {
                throw new AssertionError("Transfer-Encoding in " + r);
            }
            String length = answer.header("Content-Length");
            if (length == null || !isLength(length)) {
                throw new AssertionError("missing or malformed Content-Length in " + r);
            }
            answers.add(answer);
            continues = 0;
        }
        return new Output(answers, continues);
    }

    /** {@code 0 | [1-9][0-9]{0,9}}: no sign, no leading zero, no list. */
    private static boolean isLength(String s) {
        if (s.isEmpty() || s.length() > 10 || s.length() > 1 && s.charAt(0) == '0') {
            return false;
        }
        return s.chars().allMatch(c -> c >= '0' && c <= '9');
    }
}
