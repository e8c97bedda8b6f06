// SPDX-License-Identifier: Apache-2.0
package dev.spindle.opentelemetry;

/**
 * {@code url.query} as the conventions ask: the values of the query parameters that carry
 * credentials in signed URLs ({@code AWSAccessKeyId}, {@code Signature}, {@code sig},
 * {@code X-Goog-Signature}) replaced by {@code REDACTED}. Most queries have none of them and are
 * returned as they are, after one scan.
 */
final class QueryRedaction {
    private static final String[] SENSITIVE = {"AWSAccessKeyId", "Signature", "sig", "X-Goog-Signature"};
    private static final String REDACTED = "REDACTED";

    private QueryRedaction() {
    }

    static String redact(String query) {
        StringBuilder out = null;
        int from = 0;
        int n = query.length();
        while (from <= n) {
            int amp = query.indexOf('&', from);
            int end = amp < 0 ? n : amp;
            int eq = from;
            while (eq < end && query.charAt(eq) != '=') {
                eq++;
            }
            if (eq < end && sensitive(query, from, eq)) {
                if (out == null) {
                    out = new StringBuilder(n).append(query, 0, from);
                }
                out.append(query, from, eq + 1).append(REDACTED);
            } else if (out != null) {
                out.append(query, from, end);
            }
            if (amp < 0) {
                break;
            }
            if (out != null) {
                out.append('&');
            }
            from = amp + 1;
        }
        return out == null ? query : out.toString();
    }

    private static boolean sensitive(String query, int from, int to) {
        for (String name : SENSITIVE) {
            if (name.length() == to - from && query.regionMatches(from, name, 0, name.length())) {
                return true;
            }
        }
        return false;
    }
}
